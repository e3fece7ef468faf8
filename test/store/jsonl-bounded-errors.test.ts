// Issue #20 F20: every error a hostile log produces is bounded. The hostile-logs suite (seed
// 91827) found a 1,048,709-character rejection: a MiB key in a request header ("unknown header
// field" wrote the key out whole) — and the grammar quoted call ids and tool names whole too. Here
// every event line of a stored two-turn log gets, in turn, a long key in each of its objects and
// a long value in each of its strings (and a long event type, and a long non-JSON line after it);
// whatever the load, verifyLog or the reconstruction says must stay ≤ 2,000 characters.
import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { JsonError } from "../../src/json/index.js";
import { childPath } from "../../src/json/path.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import { Session } from "../../src/session/index.js";
import { MAX_ERROR_CHARS } from "../../reliability/hostile-logs-oracle.js";
import { fixedClock, newSession, twoTurnLog } from "../support/builders.js";
import { rootWithStoredSession, type TempJsonlRoot } from "./jsonl-harness.js";

/** Longer than any bound, short enough to write a hundred logs quickly. */
const LONG = "k y".repeat(20_000);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

let root: TempJsonlRoot;
let lines: string[];
beforeAll(async () => {
  root = await rootWithStoredSession(twoTurnLog(newSession("bounded")));
  lines = (await root.bytesOf("bounded")).toString("utf8").split("\n").slice(0, -1);
});
afterAll(() => root.cleanup());

/** Every object and string position in `value`, as key paths. */
function positions(
  value: Json,
  path: (string | number)[] = [],
): { objects: (string | number)[][]; strings: (string | number)[][] } {
  const out = { objects: [] as (string | number)[][], strings: [] as (string | number)[][] };
  if (typeof value === "string") out.strings.push(path);
  if (typeof value !== "object" || value === null) return out;
  if (!Array.isArray(value)) out.objects.push(path);
  for (const [key, item] of Object.entries(value)) {
    const inner = positions(item, [...path, Array.isArray(value) ? Number(key) : key]);
    out.objects.push(...inner.objects);
    out.strings.push(...inner.strings);
  }
  return out;
}

function edited(line: number, edit: (value: { [key: string]: Json }) => void): string {
  const value = JSON.parse(lines[line]!) as { [key: string]: Json };
  edit(value);
  return JSON.stringify(value);
}

const at = (value: Json, path: readonly (string | number)[]): Json =>
  path.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k]!, value);

/** Every message loading (and, when it loads, verifying and reconstructing) `fileLines` produces. */
async function messagesOf(fileLines: readonly string[]): Promise<string[]> {
  await writeFile(root.fileOf("bounded"), `${fileLines.join("\n")}\n`);
  try {
    const { session } = await root.open().load("bounded", { readOnly: true });
    const messages = verifyLog(session.events).issues.map((i) => i.message);
    try {
      for (const r of reconstructRequests(session.events)) void r.request;
    } catch (e) {
      messages.push((e as Error).message);
    }
    return messages;
  } catch (e) {
    return [(e as Error).message];
  }
}

describe("errors about a hostile log are bounded", () => {
  test("a long key or value anywhere in any event line, a long event type, a long non-JSON line", async () => {
    let cases = 0;
    let refused = 0;
    const over: string[] = [];
    for (let l = 1; l < lines.length; l++) {
      const variants: string[][] = [];
      const { objects, strings } = positions(JSON.parse(lines[l]!) as Json);
      for (const path of objects)
        variants.push(
          lines.toSpliced(
            l,
            1,
            edited(l, (v) => {
              (at(v, path) as Record<string, Json>)[LONG] = 1;
            }),
          ),
        );
      for (const path of strings)
        variants.push(
          lines.toSpliced(
            l,
            1,
            edited(l, (v) => {
              (at(v, path.slice(0, -1)) as Record<string | number, Json>)[path.at(-1)!] = LONG;
            }),
          ),
        );
      variants.push(
        lines.toSpliced(
          l,
          1,
          edited(l, (v) => {
            v.type = LONG;
          }),
        ),
      );
      variants.push(lines.toSpliced(l + 1, 0, LONG));
      for (const variant of variants) {
        const messages = await messagesOf(variant);
        cases++;
        if (messages.length > 0) refused++;
        for (const m of messages)
          if (m.length > MAX_ERROR_CHARS) over.push(`line ${l + 1}: ${m.length} chars: ${m.slice(0, 120)}`);
      }
    }
    expect(over).toEqual([]);
    expect(cases).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(cases / 2); // most of these edits are refused: the messages were looked at
  }, 120_000);

  test("the grammar quotes call ids and tool names bounded, and lists at most five unanswered calls", () => {
    const session = Session.create({ id: "calls" }, { clock: fixedClock() });
    session.append("turn/start", { turn: 1, trigger: "send" });
    session.append("user/message", { content: [{ type: "text", text: "go" }], source: "user" });
    session.append("step/start", { turn: 1, step: 1 });
    const calls = Array.from({ length: 40 }, (_, i) => ({
      type: "tool-call" as const,
      callId: `${LONG}-${i}`,
      name: "read",
      arguments: "{}",
    }));
    session.append("assistant/message", { turn: 1, step: 1, content: calls }, "append");
    const tryAppend = (type: string, data: unknown): string => {
      try {
        session.append(type as "step/end", data as never);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    const unknownCall = tryAppend("tool/call", { turn: 1, step: 1, callId: LONG, name: "read", arguments: "{}" });
    expect(unknownCall).toMatch(/^.{0,300}is not an unlogged tool-call block/);
    const wrongName = tryAppend("tool/call", { turn: 1, step: 1, callId: `${LONG}-0`, name: LONG, arguments: "{}" });
    expect(wrongName.length).toBeLessThan(300);
    expect(wrongName).toContain("differs from the block's read");
    const open = tryAppend("step/end", { turn: 1, step: 1 });
    expect(open).toContain("tool calls without a result:");
    expect(open).toContain("and 35 more");
    expect(open.length).toBeLessThan(1_000);
  });

  test("a JSON path writes a long key as a bounded preview, and a deep path with its middle elided", () => {
    expect(childPath("$", "plain")).toBe("$.plain");
    expect(childPath("$", "a b")).toBe('$["a b"]');
    expect(childPath("$", LONG).length).toBeLessThan(80);
    const deep = new JsonError("too-deep", `$${"[0]".repeat(512)}`, "nesting deeper than 512 levels");
    expect(deep.message.length).toBeLessThan(500);
    expect(deep.message).toMatch(/^nesting deeper than 512 levels at \$\[0\].*…\(\d+ chars\)….*\[0\]$/);
    expect(deep.path).toBe(`$${"[0]".repeat(512)}`);
  });
});
