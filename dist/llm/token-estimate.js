// Token estimates for budgeting (compaction pressure, cache reports): a cheap bytes/4 default
// and a counter for JSON-ish values memoized per (frozen) object, so re-measuring a long history
// each step costs only what was added. Pass a real tokenizer where precision matters.
import { canonicalJson } from "../json/index.js";
export const estimateTokens = (text) => Math.ceil(Buffer.byteLength(text) / 4);
/** A counter for JSON-ish values (messages, tool schemas), memoized by object identity. */
export function valueCounter(count) {
    const memo = new WeakMap();
    return (value) => {
        if (value === undefined || value === null)
            return 0;
        if (typeof value === "string")
            return count(value);
        const cached = memo.get(value);
        if (cached !== undefined)
            return cached;
        const n = count(canonicalJson(value));
        memo.set(value, n);
        return n;
    };
}
//# sourceMappingURL=token-estimate.js.map