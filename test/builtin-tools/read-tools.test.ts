// The read-only tools through executeToolCall: read (line numbers, ranges, refusals), ls, glob
// (the converter's operators, skipped folders, sorted output) and grep (file:line: text, glob
// filter, bad patterns), and the output cap's marker.
import { describe, expect, test } from "vitest";
import { capOutput, globToRegExp, truncationMarker } from "../../src/builtin-tools/index.js";
import { put, textOf, toolRig } from "./support.js";

describe("read", () => {
  test("shows every line numbered", async () => {
    const rig = await toolRig();
    await put(rig.root, "a.txt", "alpha\nbeta\ngamma\n");
    const outcome = await rig.call("read", { path: "a.txt" });
    expect(outcome).toEqual({
      content: [{ type: "text", text: "     1\talpha\n     2\tbeta\n     3\tgamma" }],
      isError: false,
    });
  });

  test("offset and limit select a range and say how to continue", async () => {
    const rig = await toolRig();
    await put(rig.root, "n.txt", Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"));
    expect(textOf(await rig.call("read", { path: "n.txt", offset: 3, limit: 2 }))).toBe(
      "     3\tline 3\n     4\tline 4\n[… 6 more lines; continue with offset 5 …]",
    );
    expect(textOf(await rig.call("read", { path: "n.txt", offset: 9 }))).toBe("     9\tline 9\n    10\tline 10");
  });

  test("an offset past the end is an error naming the line count", async () => {
    const rig = await toolRig();
    await put(rig.root, "n.txt", "one\ntwo\n");
    const outcome = await rig.call("read", { path: "n.txt", offset: 5 });
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toBe("offset 5 is past the end of n.txt (2 lines)");
  });

  test("offset 0 is invalid arguments", async () => {
    const rig = await toolRig();
    const outcome = await rig.call("read", { path: "n.txt", offset: 0 });
    expect(outcome.error).toBe("invalid-arguments");
  });

  test("a missing file, a directory and a binary file are error results", async () => {
    const rig = await toolRig();
    await put(rig.root, "dir/x", "x");
    await put(rig.root, "bin", Buffer.from([1, 0, 2]));
    const missing = await rig.call("read", { path: "nope.txt" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/ENOENT: no such file or directory/);
    expect(textOf(await rig.call("read", { path: "dir" }))).toBe("dir is not a regular file (use ls for directories)");
    expect(textOf(await rig.call("read", { path: "bin" }))).toMatch(/looks binary/);
  });

  test("an empty file says so", async () => {
    const rig = await toolRig();
    await put(rig.root, "e.txt", "");
    expect(textOf(await rig.call("read", { path: "e.txt" }))).toBe("e.txt is empty");
  });

  test("output past the cap ends with the truncation marker", async () => {
    const rig = await toolRig({ outputCap: 100 });
    await put(rig.root, "big.txt", "x".repeat(500));
    const text = textOf(await rig.call("read", { path: "big.txt" }));
    expect(text).toBe(`${`     1\t${"x".repeat(500)}`.slice(0, 100)}\n[… output truncated: 407 more characters …]`);
  });
});

describe("capOutput", () => {
  test("leaves short text alone and never splits a surrogate pair", () => {
    expect(capOutput("abc", 3)).toBe("abc");
    expect(capOutput("a😀b", 2)).toBe(`a\n${truncationMarker(3)}`);
  });

  test("the default cap is 30 000 characters", () => {
    expect(capOutput("y".repeat(30_001))).toBe(`${"y".repeat(30_000)}\n[… output truncated: 1 more characters …]`);
  });
});

describe("ls", () => {
  test("lists the root sorted, directories with / and symlinks with @", async () => {
    const rig = await toolRig();
    await put(rig.root, "b.txt");
    await put(rig.root, "a/inner.txt");
    await put(rig.root, ".hidden");
    const { symlink } = await import("node:fs/promises");
    await symlink("b.txt", `${rig.root}/c`);
    expect(textOf(await rig.call("ls", {}))).toBe(".hidden\na/\nb.txt\nc@");
    expect(textOf(await rig.call("ls", { path: "a" }))).toBe("inner.txt");
  });

  test("a file is not a directory", async () => {
    const rig = await toolRig();
    await put(rig.root, "f");
    const outcome = await rig.call("ls", { path: "f" });
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toBe("f is not a directory (use read for files)");
  });
});

describe("globToRegExp", () => {
  test.each([
    ["*.ts", "a.ts", true],
    ["*.ts", "src/a.ts", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "src/deep/a.ts", true],
    ["src/**", "src/a/b", true],
    ["src/**/x.md", "src/x.md", true],
    ["a?c", "abc", true],
    ["a?c", "a/c", false],
    ["*.{ts,md}", "r.md", true],
    ["*.{ts,md}", "r.js", false],
    ["{src,test}/**/*.{t,j}s", "test/a/b.js", true],
    ["a.b", "axb", false],
    ["(x)+", "(x)+", true],
  ])("%s against %s → %s", (pattern, path, expected) => {
    expect(globToRegExp(pattern).test(path)).toBe(expected);
  });
});

describe("glob", () => {
  test("matches recursively, sorted, relative to the root, skipping .git and node_modules", async () => {
    const rig = await toolRig();
    for (const f of [
      "src/b.ts",
      "src/a.ts",
      "src/x/c.ts",
      "readme.md",
      ".git/hooks/h.ts",
      "node_modules/p/i.ts",
      "src/node_modules/q.ts",
    ])
      await put(rig.root, f);
    expect(textOf(await rig.call("glob", { pattern: "**/*.ts" }))).toBe("src/a.ts\nsrc/b.ts\nsrc/x/c.ts");
    expect(textOf(await rig.call("glob", { pattern: "*.{md,ts}" }))).toBe("readme.md");
    expect(textOf(await rig.call("glob", { pattern: "*.ts", path: "src" }))).toBe("src/a.ts\nsrc/b.ts");
  });

  test("no match is a plain answer, an unclosed brace an error", async () => {
    const rig = await toolRig();
    expect(await rig.call("glob", { pattern: "*.none" })).toEqual({
      content: [{ type: "text", text: "No files match *.none" }],
      isError: false,
    });
    const bad = await rig.call("glob", { pattern: "{a,b" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/unclosed \{/);
  });

  test("caps the number of entries", async () => {
    const rig = await toolRig();
    await Promise.all(Array.from({ length: 1003 }, (_, i) => put(rig.root, `f/${String(i).padStart(4, "0")}.txt`)));
    const lines = textOf(await rig.call("glob", { pattern: "f/*.txt" })).split("\n");
    expect(lines).toHaveLength(1001);
    expect(lines[0]).toBe("f/0000.txt");
    expect(lines[1000]).toBe("[… 3 more matches; narrow the pattern …]");
  });
});

describe("grep", () => {
  test("prints file:line: text for each matching line", async () => {
    const rig = await toolRig();
    await put(rig.root, "src/a.ts", "const a = 1;\nexport function foo() {}\n");
    await put(rig.root, "src/b.md", "foo bar\n");
    await put(rig.root, "node_modules/x.ts", "function foo\n");
    expect(textOf(await rig.call("grep", { pattern: "fo+" }))).toBe(
      "src/a.ts:2: export function foo() {}\nsrc/b.md:1: foo bar",
    );
  });

  test("glob filters by file name, or by relative path when it has a slash", async () => {
    const rig = await toolRig();
    await put(rig.root, "src/a.ts", "foo\n");
    await put(rig.root, "src/b.md", "foo\n");
    await put(rig.root, "lib/c.ts", "foo\n");
    expect(textOf(await rig.call("grep", { pattern: "foo", glob: "*.ts" }))).toBe("lib/c.ts:1: foo\nsrc/a.ts:1: foo");
    expect(textOf(await rig.call("grep", { pattern: "foo", glob: "src/**" }))).toBe("src/a.ts:1: foo\nsrc/b.md:1: foo");
    expect(textOf(await rig.call("grep", { pattern: "foo", path: "src/b.md" }))).toBe("src/b.md:1: foo");
  });

  test("no match is a plain answer; an invalid regex is an error", async () => {
    const rig = await toolRig();
    await put(rig.root, "a.txt", "hello\n");
    expect(textOf(await rig.call("grep", { pattern: "absent" }))).toBe("No matches for /absent/");
    const bad = await rig.call("grep", { pattern: "(" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^invalid regular expression \/\(\/:/);
  });

  test("skips binary files (naming them) and caps matches", async () => {
    const rig = await toolRig();
    await put(rig.root, "bin", Buffer.concat([Buffer.from("foo\n"), Buffer.from([0])]));
    await put(rig.root, "many.txt", "foo\n".repeat(505));
    const lines = textOf(await rig.call("grep", { pattern: "foo" })).split("\n");
    expect(lines).toHaveLength(502);
    expect(lines[0]).toBe("many.txt:1: foo");
    expect(lines[500]).toBe("[… 5 more matches; narrow the pattern or path …]");
    expect(lines[501]).toBe("[skipped 1 file: bin (binary)]");
  });
});
