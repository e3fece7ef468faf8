#!/usr/bin/env node
// Stages the package exactly as it is published, in .package/ (or the directory given): the
// `files` of package.json (dist/, bin/, README, LICENSE, and the docs, examples and module
// READMEs the README links to, so its relative links work on the registry page and in
// node_modules) and a clean manifest — no scripts, devDependencies or allowScripts, so npm sees
// no install scripts. Publish with `npm run stage && npm publish .package`; `npm pack .package`
// makes the tarball the package test installs. Expects a current build (`npm run build`).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(process.argv[2] ?? join(root, ".package"));
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
if (!existsSync(join(root, "dist/index.js"))) {
  process.stderr.write("stage-package: no build in dist/; run `npm run build` first\n");
  process.exit(1);
}

/** The fields a consumer's npm reads; the development-only ones stay behind. */
const { scripts: _scripts, devDependencies: _dev, allowScripts: _allow, ...published } = manifest;

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const entry of manifest.files) {
  // a glob entry (src/*/README.md) names the module READMEs; plain entries are copied whole
  if (entry.includes("*")) {
    const [dir, , file] = entry.split("/");
    for (const name of readdirSync(join(root, dir)))
      if (existsSync(join(root, dir, name, file))) copy(join(dir, name, file));
    if (existsSync(join(root, dir, file))) copy(join(dir, file));
  } else copy(entry);
}
writeFileSync(join(out, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
process.stdout.write(`${out}\n`);

function copy(relative) {
  mkdirSync(dirname(join(out, relative)), { recursive: true });
  cpSync(join(root, relative), join(out, relative), { recursive: true });
}

