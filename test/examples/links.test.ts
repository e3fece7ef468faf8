// The README and the docs link only to files a reader has: every relative link in README.md,
// docs/**/*.md and src/**/README.md resolves to a file or folder of this repository.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

test("every relative link in the README, docs/ and the layer READMEs resolves inside the repository", () => {
  const files = [join(ROOT, "README.md"), ...markdownFiles(join(ROOT, "docs")), ...markdownFiles(join(ROOT, "src"))];
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!) || target!.startsWith("#")) continue;
      const path = resolve(dirname(file), target!.split("#")[0]!);
      if (!path.startsWith(`${ROOT}/`) || !existsSync(path)) broken.push(`${relative(ROOT, file)} → ${target}`);
    }
    for (const [, target] of text.matchAll(/`(\.\.\/shared\/[^`]+)`/g))
      broken.push(`${relative(ROOT, file)} → ${target}`);
  }
  expect(broken).toEqual([]);
});
