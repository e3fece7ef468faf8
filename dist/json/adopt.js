// adoptParsedJson: the load-path counterpart of snapshotJson, for values that just came out of
// JSON.parse and are owned by nobody else. JSON.parse produces a value that is not lossless JSON
// in three ways only: -0 (from "-0"), ±Infinity (from a literal too large for a double, such as
// "1e999"), and nesting of any depth. So instead of copying we check for those and deep-freeze
// in place: one pass, no allocation, no path strings (the path is only worked out when a
// problem is actually found). Anything else (caller-made objects) must go through snapshotJson.
import { childPath } from "./path.js";
import { JsonError, MAX_JSON_DEPTH } from "./types.js";
const CLEAN = 0;
const BAD_NUMBER = 1;
const TOO_DEEP = 2;
/** Checks a fresh `JSON.parse` result for -0, ±Infinity and too deep nesting, and deep-freezes it in place; returns it. */
export function adoptParsedJson(value, rootPath = "$") {
    const verdict = adopt(value, 0);
    if (verdict === TOO_DEEP)
        throw new JsonError("too-deep", pathTooDeep(value, rootPath), `nesting deeper than ${MAX_JSON_DEPTH} levels`);
    if (verdict === BAD_NUMBER) {
        const { path, number } = pathToBadNumber(value, rootPath);
        if (Number.isFinite(number))
            throw new JsonError("negative-zero", path, "-0 does not survive JSON (it reads back as 0)");
        throw new JsonError("non-finite-number", path, `${number} is not representable in JSON`);
    }
    return value;
}
const isBadNumber = (v) => !Number.isFinite(v) || (v === 0 && 1 / v < 0);
/** Freezes everything reachable (stopping at once on too deep nesting); reports what it saw. */
function adopt(v, depth) {
    if (typeof v === "number")
        return isBadNumber(v) ? BAD_NUMBER : CLEAN;
    if (typeof v !== "object" || v === null)
        return CLEAN;
    if (depth >= MAX_JSON_DEPTH)
        return TOO_DEEP;
    let verdict = CLEAN;
    if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
            const item = v[i];
            if (typeof item !== "object" && typeof item !== "number")
                continue;
            const seen = adopt(item, depth + 1);
            if (seen === TOO_DEEP)
                return seen;
            if (seen !== CLEAN)
                verdict = seen;
        }
    }
    else {
        for (const key in v) {
            const item = v[key];
            if (typeof item !== "object" && typeof item !== "number")
                continue;
            const seen = adopt(item, depth + 1);
            if (seen === TOO_DEEP)
                return seen;
            if (seen !== CLEAN)
                verdict = seen;
        }
    }
    Object.freeze(v);
    return verdict;
}
// The error paths below recurse at most MAX_JSON_DEPTH levels: they run only after `adopt`
// bounded the nesting (or, for too deep nesting, they stop at the bound themselves).
function pathToBadNumber(v, path) {
    if (typeof v === "number" || typeof v !== "object" || v === null)
        return { path, number: v };
    for (const [key, item] of Object.entries(v)) {
        if (typeof item === "number" ? isBadNumber(item) : typeof item === "object" && item !== null && !isClean(item)) {
            return pathToBadNumber(item, childPath(path, Array.isArray(v) ? Number(key) : key));
        }
    }
    return { path, number: 0 };
}
function isClean(v) {
    return Object.values(v).every((item) => typeof item === "number" ? !isBadNumber(item) : typeof item !== "object" || item === null || isClean(item));
}
/** The path of the first array or object (in `adopt`'s order) nested `MAX_JSON_DEPTH + 1` levels deep. */
function pathTooDeep(value, rootPath) {
    const keys = [];
    const find = (v, depth) => {
        if (typeof v !== "object" || v === null)
            return false;
        if (depth >= MAX_JSON_DEPTH)
            return true;
        for (const [key, item] of Object.entries(v)) {
            keys.push(Array.isArray(v) ? Number(key) : key);
            if (find(item, depth + 1))
                return true;
            keys.pop();
        }
        return false;
    };
    find(value, 0);
    return keys.reduce(childPath, rootPath);
}
//# sourceMappingURL=adopt.js.map