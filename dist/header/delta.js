// The header delta codec: diff two canonical headers into a `HeaderDelta`, apply one back.
// A delta is only ever logged when applying it reproduces the target exactly (see record.ts);
// arms that cannot express a change (e.g. a reordering of tools) fall back to a snapshot.
import { canonicalJson, previewJson } from "../json/index.js";
import { canonicalHeader } from "./canonical.js";
import { HeaderError } from "./types.js";
const linesOf = (system) => system === undefined || system === "" ? [] : system.split("\n");
const jsonKey = (v) => canonicalJson(v);
/** Line trim from `prev` to `next`: common leading and trailing lines kept, the middle inserted. */
export function diffSystem(prev, next) {
    const a = linesOf(prev);
    const b = linesOf(next);
    let keepStart = 0;
    while (keepStart < a.length && keepStart < b.length && a[keepStart] === b[keepStart])
        keepStart++;
    let keepEnd = 0;
    while (keepEnd < a.length - keepStart &&
        keepEnd < b.length - keepStart &&
        a[a.length - 1 - keepEnd] === b[b.length - 1 - keepEnd]) {
        keepEnd++;
    }
    return { keepStart, keepEnd, insert: b.slice(keepStart, b.length - keepEnd) };
}
export function applySystemDelta(system, delta) {
    const lines = linesOf(system);
    if (delta.keepStart + delta.keepEnd > lines.length) {
        throw new HeaderError("delta-mismatch", `system delta keeps ${delta.keepStart}+${delta.keepEnd} lines of a ${lines.length}-line system prompt`);
    }
    const out = [...lines.slice(0, delta.keepStart), ...delta.insert, ...lines.slice(lines.length - delta.keepEnd)].join("\n");
    return out === "" ? undefined : out;
}
/** Tools keyed by name: which were removed, which changed (compared canonically), which added. */
export function diffTools(prev = [], next = []) {
    const before = new Map(prev.map((t) => [t.name, t]));
    const after = new Set(next.map((t) => t.name));
    const changed = [];
    const added = [];
    for (const tool of next) {
        const old = before.get(tool.name);
        if (old === undefined)
            added.push(tool);
        else if (jsonKey(old) !== jsonKey(tool))
            changed.push(tool);
    }
    return { added, removed: prev.filter((t) => !after.has(t.name)).map((t) => t.name), changed };
}
export function applyToolsDelta(tools = [], delta) {
    const removed = new Set(delta.removed);
    for (const name of removed) {
        if (!tools.some((t) => t.name === name))
            throw new HeaderError("delta-mismatch", `tools delta removes unknown tool ${previewJson(name)}`);
    }
    const changed = new Map(delta.changed.map((t) => [t.name, t]));
    const out = tools.filter((t) => !removed.has(t.name)).map((t) => changed.get(t.name) ?? t);
    for (const name of changed.keys()) {
        if (!out.some((t) => t.name === name))
            throw new HeaderError("delta-mismatch", `tools delta changes unknown tool ${previewJson(name)}`);
    }
    for (const tool of delta.added) {
        if (out.some((t) => t.name === tool.name))
            throw new HeaderError("delta-mismatch", `tools delta adds existing tool ${previewJson(tool.name)}`);
        out.push(tool);
    }
    return out;
}
/** The delta from `prev` to `next` (both taken canonically); `undefined` when they are equal. */
export function diffHeader(prev, next) {
    const a = canonicalHeader(prev);
    const b = canonicalHeader(next);
    const delta = {};
    if (a.system !== b.system)
        delta.system = diffSystem(a.system, b.system);
    if (jsonKey(a.tools ?? []) !== jsonKey(b.tools ?? []))
        delta.tools = diffTools(a.tools, b.tools);
    if (jsonKey(a.config) !== jsonKey(b.config))
        delta.config = b.config;
    if (jsonKey(a.messagePrefix ?? []) !== jsonKey(b.messagePrefix ?? []))
        delta.messagePrefix = b.messagePrefix ?? [];
    return Object.keys(delta).length === 0 ? undefined : delta;
}
/** Applies `delta` to `header` and returns the canonical result. Throws `HeaderError('delta-mismatch')`. */
export function applyHeaderDelta(header, delta) {
    const system = delta.system === undefined ? header.system : applySystemDelta(header.system, delta.system);
    const tools = delta.tools === undefined ? header.tools : applyToolsDelta(header.tools, delta.tools);
    const messagePrefix = delta.messagePrefix === undefined ? header.messagePrefix : delta.messagePrefix;
    return canonicalHeader({
        config: delta.config ?? header.config,
        ...(system === undefined ? {} : { system }),
        ...(tools === undefined ? {} : { tools }),
        ...(messagePrefix === undefined ? {} : { messagePrefix }),
    });
}
//# sourceMappingURL=delta.js.map