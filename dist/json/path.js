// How a JSON path is written in error messages: `$.a.b[2]`, `$["a b"]`.
export function childPath(parent, key) {
    if (typeof key === "number")
        return `${parent}[${key}]`;
    return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}
//# sourceMappingURL=path.js.map