export function composeRequest(header, history) {
    const prefix = header.messagePrefix;
    return {
        ...header.config,
        ...(header.system === undefined || header.system === "" ? {} : { system: header.system }),
        ...(header.tools === undefined || header.tools.length === 0 ? {} : { tools: header.tools }),
        messages: prefix === undefined || prefix.length === 0 ? history : [...prefix, ...history],
    };
}
//# sourceMappingURL=compose.js.map