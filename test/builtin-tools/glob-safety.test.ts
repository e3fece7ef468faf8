// Glob matching in bounded time (issue #12 T3): compileGlob (an NFA, linear in the path) speaks
// the same language as globToRegExp — the converter's table, and a property test against the
// RegExp on small random patterns — and a pattern that makes the RegExp backtrack for minutes
// finishes at once, in the matcher, the glob tool and grep's glob filter.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compileGlob } from "../../src/builtin-tools/glob-match.js";
import { globToRegExp, ToolFailure } from "../../src/builtin-tools/index.js";
import { put, textOf, toolRig } from "./support.js";

const CATASTROPHIC = "**a**a**a**a**a**a**a**a**a**a**b";
/** A 93-character file name of `a`s, no `b`: a backtracker tries every way of splitting it. */
const LONG_PATH = "a".repeat(93);
/** A hang guard, not a speed target: the backtracking RegExp takes over a minute here. */
const BOUND_MS = 1_000;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("compileGlob", () => {
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
    ["\\*.ts", "*.ts", true],
    ["\\*.ts", "a.ts", false],
    ["{a,{b,c}d}", "cd", true],
    ["{a,{b,c}d}", "c", false],
    ["a}b,c", "a}b,c", true],
    ["x/**/", "x/", true],
    ["a**b", "a/x/b", true],
    ["?", "😀", true],
    ["trailing\\", "trailing\\", true],
  ])("%s against %s → %s (the language of globToRegExp)", (pattern, path, expected) => {
    expect(compileGlob(pattern).matches(path)).toBe(expected);
    expect(globToRegExp(pattern).test(path)).toBe(expected);
  });

  test("an unclosed brace is a bad-pattern failure naming the glob", () => {
    const error = thrown(() => compileGlob("{a,{b}"));
    expect(error).toBeInstanceOf(ToolFailure);
    expect(error).toMatchObject({ code: "bad-pattern", message: 'glob "{a,{b}" has an unclosed {' });
  });

  test("agrees with globToRegExp on small random patterns and paths", () => {
    // Tokens rather than characters, so `**`, `**/` and braces turn up often.
    const patternToken = fc.constantFrom("a", "b", ".", "/", "*", "**", "**/", "?", "{", "}", ",", "\\", "é", "😀");
    const pathChar = fc.constantFrom("a", "b", ".", "/", "/", "*", "{", ",", "\\", "é", "😀");
    fc.assert(
      fc.property(
        fc.array(patternToken, { maxLength: 10 }).map((tokens) => tokens.join("")),
        fc.array(
          fc.array(pathChar, { maxLength: 8 }).map((chars) => chars.join("")),
          { minLength: 1, maxLength: 6 },
        ),
        (pattern, paths) => {
          const reference = thrown(() => globToRegExp(pattern));
          const compiled = thrown(() => compileGlob(pattern));
          expect(compiled === undefined).toBe(reference === undefined);
          if (compiled !== undefined) return;
          const regex = globToRegExp(pattern);
          const matcher = compileGlob(pattern);
          for (const path of paths)
            expect([pattern, path, matcher.matches(path)]).toEqual([pattern, path, regex.test(path)]);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  test("a pattern that makes the RegExp backtrack catastrophically is matched at once", () => {
    const started = performance.now();
    const matcher = compileGlob(CATASTROPHIC);
    expect(matcher.matches(LONG_PATH)).toBe(false);
    expect(matcher.matches(`${LONG_PATH}b`)).toBe(true);
    expect(matcher.matches(`${"a/".repeat(46)}a`)).toBe(false);
    expect(matcher.matches("a".repeat(5_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
  });
});

describe("the tools match globs in bounded time", () => {
  test("glob with a catastrophic pattern over a 93-character path answers at once", async () => {
    const rig = await toolRig();
    await put(rig.root, LONG_PATH, "x");
    const started = performance.now();
    expect(textOf(await rig.call("glob", { pattern: CATASTROPHIC }))).toBe(`No files match ${CATASTROPHIC}`);
    expect(textOf(await rig.call("glob", { pattern: `${CATASTROPHIC.slice(0, -1)}a` }))).toBe(LONG_PATH);
    expect(performance.now() - started).toBeLessThan(BOUND_MS * 5);
  });

  test("grep's glob filter uses the same bounded matcher", async () => {
    const rig = await toolRig();
    await put(rig.root, LONG_PATH, "needle\n");
    const started = performance.now();
    expect(textOf(await rig.call("grep", { pattern: "needle", glob: CATASTROPHIC }))).toBe("No matches for /needle/");
    expect(performance.now() - started).toBeLessThan(BOUND_MS * 5);
  });
});

describe("glob touches regular files only", () => {
  test("a FIFO given as the directory is not-a-directory, from a stat (never an open)", async () => {
    const rig = await toolRig();
    execFileSync("mkfifo", [join(rig.root, "pipe")]);
    const outcome = await rig.call("glob", { pattern: "**", path: "pipe" });
    expect(outcome.isError).toBe(true);
    expect(outcome.meta).toEqual({ code: "not-a-directory" });
  });
});
