// The prefix-cache models (CACHING.md), pure apart from an injected clock. Both work on a
// request already cut into token-counted, hashed units (blocks for Anthropic, messages for
// OpenAI/DeepSeek) and chain the hashes, so "this prefix was seen" is one map lookup per unit.
//
// AnthropicCacheModel — explicit breakpoints: each breakpoint writes the prefix through its
//   block; a read looks back at most 20 blocks from each breakpoint for an unexpired entry;
//   the longest read wins; prefixes under the minimum are neither read nor written; reads
//   refresh the TTL. Usage: read = longest prefix read, write = read point → last breakpoint,
//   input = after the last breakpoint.
// PrefixCacheModel — automatic prefix caching: cached = the longest stored prefix rounded
//   down to whole blocks, zero under the minimum. OpenAI stores every message boundary of each
//   request; DeepSeek stores only complete units: the end of the input and input + output.
import { createHash } from "node:crypto";
import { KeelsonError } from "../errors/index.js";
export class CacheModelError extends KeelsonError {
}
const systemClock = { now: () => Date.now() };
/** Chain links already computed: a long session re-chains the same prefix every request. */
const links = new Map();
const LINK_LIMIT = 500_000;
/** Hashes of every prefix: chain[i] identifies blocks 0..i (order and content). */
function chainHashes(units) {
    const chain = [];
    let previous = "";
    for (const unit of units) {
        const link = `${previous}\u0000${unit.hash}`;
        let next = links.get(link);
        if (next === undefined) {
            next = createHash("sha256").update(link).digest("base64url");
            if (links.size >= LINK_LIMIT)
                links.clear();
            links.set(link, next);
        }
        previous = next;
        chain.push(previous);
    }
    return chain;
}
/** An expiring map of prefix entries, keyed by namespace + chain hash. */
class EntryStore {
    #entries = new Map();
    #clock;
    constructor(clock) {
        this.#clock = clock;
    }
    get size() {
        this.#sweep();
        return this.#entries.size;
    }
    live(key) {
        const entry = this.#entries.get(key);
        if (entry === undefined)
            return undefined;
        if (entry.expiresAt <= this.#clock.now()) {
            this.#entries.delete(key);
            return undefined;
        }
        return entry;
    }
    put(key, tokens, ttlMs) {
        this.#entries.set(key, { tokens, expiresAt: this.#clock.now() + ttlMs });
    }
    clear() {
        this.#entries.clear();
    }
    #sweep() {
        const now = this.#clock.now();
        for (const [key, entry] of this.#entries)
            if (entry.expiresAt <= now)
                this.#entries.delete(key);
    }
}
export class AnthropicCacheModel {
    minCacheableTokens;
    ttlMs;
    lookbackBlocks;
    maxBreakpoints;
    #store;
    constructor(options = {}) {
        this.minCacheableTokens = options.minCacheableTokens ?? 1024;
        this.ttlMs = options.ttlMs ?? 300_000;
        this.lookbackBlocks = options.lookbackBlocks ?? 20;
        this.maxBreakpoints = options.maxBreakpoints ?? 4;
        this.#store = new EntryStore(options.clock ?? systemClock);
    }
    /** Live entries (expired ones are dropped first). */
    get size() {
        return this.#store.size;
    }
    clear() {
        this.#store.clear();
    }
    /**
     * Accounts one request: reads, then writes one entry per breakpoint. `namespace` separates
     * caches (API key/org + model); `minCacheableTokens` overrides the default per model.
     */
    apply(namespace, blocks, options = {}) {
        const min = options.minCacheableTokens ?? this.minCacheableTokens;
        const breakpoints = blocks.flatMap((block, i) => (block.breakpoint ? [i] : []));
        if (breakpoints.length > this.maxBreakpoints)
            throw new CacheModelError("too-many-breakpoints", `A maximum of ${this.maxBreakpoints} blocks with cache_control may be provided. Found ${breakpoints.length}.`);
        const cumulative = [];
        let total = 0;
        for (const block of blocks) {
            total += block.tokens;
            cumulative.push(total);
        }
        const last = breakpoints.at(-1);
        if (last === undefined || cumulative[last] < min)
            return { inputTokens: total, cacheReadTokens: 0, cacheWriteTokens: 0 };
        const chain = chainHashes(blocks);
        const key = (i) => `${namespace}\u0000${chain[i]}`;
        let readAt = -1;
        for (const p of breakpoints) {
            for (let i = p; i >= Math.max(0, p - this.lookbackBlocks + 1) && i > readAt; i -= 1) {
                if (cumulative[i] >= min && this.#store.live(key(i)) !== undefined) {
                    readAt = i;
                    break;
                }
            }
        }
        const read = readAt < 0 ? 0 : cumulative[readAt];
        if (readAt >= 0)
            this.#store.put(key(readAt), read, this.ttlMs);
        for (const p of breakpoints)
            if (cumulative[p] >= min)
                this.#store.put(key(p), cumulative[p], this.ttlMs);
        return {
            inputTokens: total - cumulative[last],
            cacheReadTokens: read,
            cacheWriteTokens: cumulative[last] - read,
        };
    }
}
export class PrefixCacheModel {
    style;
    minTokens;
    blockTokens;
    ttlMs;
    #store;
    constructor(options) {
        const deepseek = options.style === "deepseek";
        this.style = options.style;
        this.minTokens = options.minTokens ?? (deepseek ? 64 : 1024);
        this.blockTokens = options.blockTokens ?? (deepseek ? 64 : 128);
        this.ttlMs = options.ttlMs ?? (deepseek ? 3_600_000 : 300_000);
        this.#store = new EntryStore(options.clock ?? systemClock);
    }
    get size() {
        return this.#store.size;
    }
    clear() {
        this.#store.clear();
    }
    /**
     * Accounts one request, then stores its prefixes (and, for deepseek, the unit ending after
     * `output`, the assistant message the model produced, as the next request will send it).
     */
    apply(namespace, segments, output) {
        const chain = chainHashes(output === undefined ? segments : [...segments, output]);
        const key = (i) => `${namespace}\u0000${chain[i]}`;
        let total = 0;
        let matched = 0;
        let matchedAt = -1;
        const cumulative = [];
        for (let i = 0; i < segments.length; i += 1) {
            total += segments[i].tokens;
            cumulative.push(total);
            const entry = this.#store.live(key(i));
            if (entry !== undefined) {
                matched = entry.tokens;
                matchedAt = i;
            }
        }
        const rounded = Math.floor(matched / this.blockTokens) * this.blockTokens;
        const cachedTokens = rounded >= this.minTokens ? rounded : 0;
        if (matchedAt >= 0)
            this.#store.put(key(matchedAt), matched, this.ttlMs);
        if (this.style === "openai") {
            for (let i = 0; i < segments.length; i += 1)
                this.#store.put(key(i), cumulative[i], this.ttlMs);
        }
        else if (segments.length > 0) {
            this.#store.put(key(segments.length - 1), total, this.ttlMs);
            if (output !== undefined)
                this.#store.put(key(segments.length), total + output.tokens, this.ttlMs);
        }
        return { promptTokens: total, cachedTokens };
    }
}
//# sourceMappingURL=cache-model.js.map