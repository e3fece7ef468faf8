/** Serializes a JSON value with sorted keys. Input must already be lossless JSON. */
export function canonicalJson(value) {
    if (value === null || typeof value !== "object")
        return JSON.stringify(value);
    if (Array.isArray(value))
        return `[${value.map(canonicalJson).join(",")}]`;
    const obj = value;
    const keys = Object.keys(obj).sort();
    let out = "{";
    for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        if (i > 0)
            out += ",";
        out += `${JSON.stringify(key)}:${canonicalJson(obj[key])}`;
    }
    return `${out}}`;
}
/** Equality of two JSON values by canonical serialization. */
export function canonicalEquals(a, b) {
    return a === b || canonicalJson(a) === canonicalJson(b);
}
//# sourceMappingURL=canonical.js.map