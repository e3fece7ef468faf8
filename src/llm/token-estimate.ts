// Token estimates for budgeting (compaction pressure, cache reports): a cheap bytes/4 default
// and a counter for JSON-ish values memoized per (frozen) object, so re-measuring a long history
// each step costs only what was added. Pass a real tokenizer where precision matters.
import { canonicalJson, type JsonValue } from "../json/index.js";

export type TokenCounter = (text: string) => number;

export const estimateTokens: TokenCounter = (text) => Math.ceil(Buffer.byteLength(text) / 4);

/** A counter for JSON-ish values (messages, tool schemas), memoized by object identity. */
export function valueCounter(count: TokenCounter): (value: unknown) => number {
  const memo = new WeakMap<object, number>();
  return (value) => {
    if (value === undefined || value === null) return 0;
    if (typeof value === "string") return count(value);
    const cached = memo.get(value as object);
    if (cached !== undefined) return cached;
    const n = count(canonicalJson(value as JsonValue));
    memo.set(value as object, n);
    return n;
  };
}
