import { ProviderError, } from "./types.js";
export class BlockAssembler {
    #blocks = [];
    #usage;
    #finish;
    #error;
    get finished() {
        return this.#finish !== undefined;
    }
    push(chunk) {
        if (this.#finish !== undefined)
            throw new ProviderError("protocol", `chunk ${chunk.type} after finish`);
        switch (chunk.type) {
            case "block-start": {
                if (chunk.index !== this.#blocks.length)
                    throw new ProviderError("protocol", `block-start ${chunk.index} out of order (expected ${this.#blocks.length})`);
                const b = chunk.block;
                this.#blocks.push(b.type === "tool-call"
                    ? { type: "tool-call", callId: b.callId, name: b.name, arguments: "", open: true }
                    : b.type === "reasoning" && b.redacted === true
                        ? { type: "reasoning", text: "", redacted: true, open: true }
                        : { type: b.type, text: "", open: true });
                return;
            }
            case "text-delta":
            case "reasoning-delta": {
                const block = this.#open(chunk.index, chunk.type);
                if (block.type !== (chunk.type === "text-delta" ? "text" : "reasoning"))
                    throw new ProviderError("protocol", `${chunk.type} for a ${block.type} block`);
                block.text += chunk.text;
                if (chunk.type === "reasoning-delta" && chunk.signature !== undefined)
                    block.signature = chunk.signature;
                return;
            }
            case "tool-call-delta": {
                const block = this.#open(chunk.index, chunk.type);
                if (block.type !== "tool-call")
                    throw new ProviderError("protocol", `tool-call-delta for a ${block.type} block`);
                block.arguments += chunk.argumentsDelta;
                return;
            }
            case "block-end":
                this.#open(chunk.index, chunk.type).open = false;
                return;
            case "usage":
                this.#usage = chunk.usage;
                return;
            case "finish":
                this.#finish = chunk.reason;
                this.#error = chunk.error;
                return;
        }
    }
    /** The assembled result; blocks still open are closed as they are (an aborted stream). */
    result() {
        const content = this.#blocks.map((b) => {
            if (b.type === "tool-call")
                return { type: "tool-call", callId: b.callId, name: b.name, arguments: b.arguments };
            if (b.type === "reasoning") {
                return {
                    type: "reasoning",
                    text: b.text,
                    ...(b.signature === undefined ? {} : { signature: b.signature }),
                    ...(b.redacted ? { redacted: true } : {}),
                };
            }
            return { type: "text", text: b.text };
        });
        return {
            content,
            finish: this.#finish ?? "error",
            ...(this.#usage === undefined ? {} : { usage: this.#usage }),
            ...(this.#error === undefined
                ? this.#finish === undefined
                    ? { error: { message: "the stream ended without a finish chunk", code: "truncated" } }
                    : {}
                : { error: this.#error }),
        };
    }
    #open(index, what) {
        const block = this.#blocks[index];
        if (block === undefined || !block.open)
            throw new ProviderError("protocol", `${what} for block ${index}, which is not open`);
        return block;
    }
}
//# sourceMappingURL=assembler.js.map