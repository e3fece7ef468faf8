// previewJson: a value as it may appear in an error message — its JSON, cut to a bounded length.
// A hostile log can hold megabyte strings in any position; errors that quote values must stay
// one readable line.
const DEFAULT_MAX = 60;
/** JSON of `value` cut to `max` characters with "..." (or its type name when it has no JSON). */
export function previewJson(value, max = DEFAULT_MAX) {
    let text;
    try {
        text = JSON.stringify(value);
    }
    catch {
        text = undefined;
    }
    if (text === undefined)
        return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
    return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
//# sourceMappingURL=preview.js.map