// Builders for the subagent tests: a subagent tool whose child's scripted model makes one call
// and then answers, and a JSONL store in a temp directory for one test file (children need a
// store that outlives an agent: a page reload, a check against the stored log).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { ScriptedProvider, type ScriptedStep, type ScriptedToolCall } from "../../src/llm/core.js";
import { subagentTool } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";

/** A scripted model: `steps`, then `fallback` as the answer to every later request. */
export const scripted = (steps: readonly ScriptedStep[], fallback: string): ScriptedProvider =>
  new ScriptedProvider(steps, { fallback: { text: fallback } });

/** Subagent tool `name`: its child calls `call` in its first step, then answers `answer`; `tools`: what it is passed down. */
export function delegateTool(name: string, call: ScriptedToolCall, answer: string, tools?: readonly string[]) {
  return subagentTool({
    name,
    description: `Delegates to ${name}.`,
    ...(tools === undefined ? {} : { tools }),
    agent: { provider: scripted([{ toolCalls: [call] }], answer) },
  });
}

/** A fresh JSONL store per test (closed and removed after it); call at the top level of a test file. */
export function useTempStore(prefix: string): () => JsonlSessionStore {
  let root: string | undefined;
  let store: JsonlSessionStore | undefined;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
    store = new JsonlSessionStore({ root });
  });
  afterEach(async () => {
    await store?.close();
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });
  return () => {
    if (store === undefined) throw new Error("useTempStore: the store is made in beforeEach");
    return store;
  };
}
