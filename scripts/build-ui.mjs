// Builds the inspector's front end (src/inspect/ui) into dist/inspect/ui: one esbuild bundle
// (preact included, no CDN), its stylesheet and index.html. Run by `npm run build`; the browser
// tests run it too when the bundle is older than the sources.
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src/inspect/ui");
const out = join(root, "dist/inspect/ui");

await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(src, "main.tsx")],
  outfile: join(out, "app.js"),
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: false,
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  logLevel: "warning",
});
await copyFile(join(src, "index.html"), join(out, "index.html"));
await copyFile(join(src, "app.css"), join(out, "app.css"));
