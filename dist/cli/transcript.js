/** Collapses whitespace and cuts `text` to `max` characters with an ellipsis. */
export function preview(text, max = 60) {
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
export function contentText(content) {
    return content
        .map((part) => {
        switch (part.type) {
            case "text":
                return part.text;
            case "image":
                return `[image ${part.mediaType}]`;
            case "reasoning":
                return `[reasoning${part.redacted ? ", redacted" : ""}] ${part.text}`;
            case "tool-call":
                return `[tool-call ${part.name} ${part.arguments}]`;
        }
        return "";
    })
        .join("\n");
}
export function messageText(message) {
    if (message.role === "tool") {
        const [result] = message.content;
        return `[result ${result.callId}${result.isError ? ", error" : ""}] ${contentText(result.content)}`;
    }
    return contentText(message.content);
}
/** Indents every line after the first by `pad`. */
export function indent(text, pad) {
    return text.split("\n").join(`\n${pad}`);
}
//# sourceMappingURL=transcript.js.map