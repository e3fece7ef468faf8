// BlockAssembler: folds a chunk stream into assistant content blocks, usage and a finish reason.
// Strict about protocol order (a delta for a block that was not started is a ProviderError),
// so a misbehaving adapter fails loudly instead of producing a half-formed message.
import type { AssistantContent, ProviderData } from "../messages/index.js";
import {
  type AssistantResult,
  type FinishReason,
  type ProviderFailure,
  ProviderError,
  type StreamChunk,
} from "./types.js";

type Draft = (
  | { type: "text"; text: string; open: boolean }
  | { type: "reasoning"; text: string; signature?: string; redacted?: boolean; open: boolean }
  | { type: "tool-call"; callId: string; name: string; arguments: string; open: boolean }
) & { providerData?: ProviderData };

export class BlockAssembler {
  readonly #blocks: Draft[] = [];
  #usage: AssistantResult["usage"];
  #finish: FinishReason | undefined;
  #error: ProviderFailure | undefined;

  get finished(): boolean {
    return this.#finish !== undefined;
  }

  push(chunk: StreamChunk): void {
    if (this.#finish !== undefined) throw new ProviderError("protocol", `chunk ${chunk.type} after finish`);
    switch (chunk.type) {
      case "block-start": {
        if (chunk.index !== this.#blocks.length)
          throw new ProviderError(
            "protocol",
            `block-start ${chunk.index} out of order (expected ${this.#blocks.length})`,
          );
        const b = chunk.block;
        this.#blocks.push(
          b.type === "tool-call"
            ? { type: "tool-call", callId: b.callId, name: b.name, arguments: "", open: true }
            : b.type === "reasoning" && b.redacted === true
              ? { type: "reasoning", text: "", redacted: true, open: true }
              : { type: b.type, text: "", open: true },
        );
        return;
      }
      case "text-delta":
      case "reasoning-delta": {
        const block = this.#open(chunk.index, chunk.type);
        if (block.type !== (chunk.type === "text-delta" ? "text" : "reasoning"))
          throw new ProviderError("protocol", `${chunk.type} for a ${block.type} block`);
        (block as { text: string }).text += chunk.text;
        if (chunk.type === "reasoning-delta" && chunk.signature !== undefined)
          (block as { signature?: string }).signature = chunk.signature;
        return;
      }
      case "tool-call-delta": {
        const block = this.#open(chunk.index, chunk.type);
        if (block.type !== "tool-call")
          throw new ProviderError("protocol", `tool-call-delta for a ${block.type} block`);
        block.arguments += chunk.argumentsDelta;
        return;
      }
      case "block-end": {
        const block = this.#open(chunk.index, chunk.type);
        block.open = false;
        if (chunk.providerData !== undefined) block.providerData = chunk.providerData;
        return;
      }
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
  result(): AssistantResult {
    const content: AssistantContent[] = this.#blocks.map((b) => {
      const data = b.providerData === undefined ? {} : { providerData: b.providerData };
      if (b.type === "tool-call")
        return { type: "tool-call", callId: b.callId, name: b.name, arguments: b.arguments, ...data };
      if (b.type === "reasoning") {
        return {
          type: "reasoning",
          text: b.text,
          ...(b.signature === undefined ? {} : { signature: b.signature }),
          ...(b.redacted ? { redacted: true } : {}),
          ...data,
        };
      }
      return { type: "text", text: b.text, ...data };
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

  #open(index: number, what: string): Draft {
    const block = this.#blocks[index];
    if (block === undefined || !block.open)
      throw new ProviderError("protocol", `${what} for block ${index}, which is not open`);
    return block;
  }
}
