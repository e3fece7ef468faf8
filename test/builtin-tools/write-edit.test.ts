// The mutating file tools through executeToolCall: write (parents created, overwrite, refuses a
// directory) and edit (exact, literal replacement; missing and ambiguous matches refused with
// the count; replaceAll).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { put, textOf, toolRig } from "./support.js";

describe("write", () => {
  test("creates the file and its parent directories", async () => {
    const rig = await toolRig();
    const outcome = await rig.call("write", { path: "a/b/c.txt", content: "héllo" });
    expect(outcome).toEqual({ content: [{ type: "text", text: "Created a/b/c.txt (6 bytes)" }], isError: false });
    expect(await readFile(join(rig.root, "a/b/c.txt"), "utf8")).toBe("héllo");
  });

  test("overwrites an existing file", async () => {
    const rig = await toolRig();
    await put(rig.root, "f.txt", "old");
    expect(textOf(await rig.call("write", { path: "f.txt", content: "new" }))).toBe("Overwrote f.txt (3 bytes)");
    expect(await readFile(join(rig.root, "f.txt"), "utf8")).toBe("new");
  });

  test("refuses a directory and paths outside the root", async () => {
    const rig = await toolRig();
    await put(rig.root, "d/x");
    expect(textOf(await rig.call("write", { path: "d", content: "x" }))).toBe(
      "d is a directory; write needs a file path",
    );
    const outside = await rig.call("write", { path: "../escape.txt", content: "x" });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toMatch(/outside the workspace/);
  });
});

describe("edit", () => {
  test("replaces a unique exact match literally", async () => {
    const rig = await toolRig();
    await put(rig.root, "f.ts", "const a = 1;\nconst b = 2;\n");
    const outcome = await rig.call("edit", { path: "f.ts", oldString: "b = 2", newString: "b = $& + 3" });
    expect(outcome).toEqual({ content: [{ type: "text", text: "Replaced 1 occurrence in f.ts" }], isError: false });
    expect(await readFile(join(rig.root, "f.ts"), "utf8")).toBe("const a = 1;\nconst b = $& + 3;\n");
  });

  test("refuses an ambiguous match, naming the count, and leaves the file alone", async () => {
    const rig = await toolRig();
    await put(rig.root, "f.txt", "x x x");
    const outcome = await rig.call("edit", { path: "f.txt", oldString: "x", newString: "y" });
    expect(outcome.isError).toBe(true);
    expect(outcome.meta).toEqual({ code: "ambiguous-match" });
    expect(textOf(outcome)).toBe(
      "oldString appears 3 times in f.txt; include more surrounding text to make it unique, or set replaceAll to replace all 3",
    );
    expect(await readFile(join(rig.root, "f.txt"), "utf8")).toBe("x x x");
  });

  test("replaceAll replaces every occurrence", async () => {
    const rig = await toolRig();
    await put(rig.root, "f.txt", "x x x");
    expect(textOf(await rig.call("edit", { path: "f.txt", oldString: "x", newString: "y", replaceAll: true }))).toBe(
      "Replaced 3 occurrences in f.txt",
    );
    expect(await readFile(join(rig.root, "f.txt"), "utf8")).toBe("y y y");
  });

  test("refuses a missing match", async () => {
    const rig = await toolRig();
    await put(rig.root, "f.txt", "hello");
    const outcome = await rig.call("edit", { path: "f.txt", oldString: "bye", newString: "x" });
    expect(outcome.isError).toBe(true);
    expect(outcome.meta).toEqual({ code: "no-match" });
    expect(textOf(outcome)).toMatch(/^oldString was not found in f\.txt/);
  });

  test("refuses identical strings, an empty oldString and a missing file", async () => {
    const rig = await toolRig();
    await put(rig.root, "f.txt", "hello");
    expect(textOf(await rig.call("edit", { path: "f.txt", oldString: "hello", newString: "hello" }))).toMatch(
      /identical/,
    );
    expect((await rig.call("edit", { path: "f.txt", oldString: "", newString: "x" })).error).toBe("invalid-arguments");
    const missing = await rig.call("edit", { path: "none.txt", oldString: "a", newString: "b" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/ENOENT/);
  });
});
