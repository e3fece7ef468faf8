import { WireError } from "./types.js";
export function isObj(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value);
}
export function invalid(message, param) {
    return new WireError("invalid-request", message, param === undefined ? {} : { param });
}
export function requireObj(value, path) {
    if (!isObj(value))
        throw invalid(`${path}: Input should be a valid dictionary`, path);
    return value;
}
export function requireString(value, path) {
    if (value === undefined)
        throw invalid(`${path}: Field required`, path);
    if (typeof value !== "string")
        throw invalid(`${path}: Input should be a valid string`, path);
    return value;
}
export function optionalString(value, path) {
    return value === undefined || value === null ? undefined : requireString(value, path);
}
export function requireArray(value, path) {
    if (value === undefined)
        throw invalid(`${path}: Field required`, path);
    if (!Array.isArray(value))
        throw invalid(`${path}: Input should be a valid list`, path);
    return value;
}
export function optionalArray(value, path) {
    return value === undefined || value === null ? [] : requireArray(value, path);
}
export function optionalPositiveInt(value, path) {
    if (value === undefined || value === null)
        return undefined;
    if (typeof value !== "number" || !Number.isInteger(value))
        throw invalid(`${path}: Input should be a valid integer`, path);
    if (value < 1)
        throw invalid(`${path}: Input should be greater than or equal to 1`, path);
    return value;
}
/** `stop` / `stop_sequences`: a string or a list of strings. */
export function stopList(value, path) {
    if (value === undefined || value === null)
        return [];
    if (typeof value === "string")
        return [value];
    return requireArray(value, path).map((s, i) => requireString(s, `${path}.${i}`));
}
/** JSON Schema object of a tool; anything else is a 400. */
export function schemaObject(value, path) {
    if (value === undefined)
        return {};
    return requireObj(value, path);
}
//# sourceMappingURL=wire-json.js.map