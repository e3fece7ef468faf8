// What the client holds of one step, and the chunks that bring it to the log's answer. Live
// blocks become parts while they arrive in content order; a block that starts past a gap (a
// feed that joined mid-step) silences the rest of the step's live events. A text or reasoning
// part ends when its block's live end arrives (a feed sends one only for a block whose deltas
// all reached it); one still open at the committed answer gets the suffix it lacks and its end,
// blocks the client never saw are sent whole, and tool calls become `tool-input-available`
// with the logged arguments — so the client's parts equal the answer, whatever it missed.
import type { AssistantContent } from "../messages/index.js";
import type { LiveTurnEvent } from "../loop/index.js";
import { streamBlockId, toolInput } from "./ui-parts.js";
import type { UIMessageChunk } from "./ui-types.js";

export interface ToolCallPart {
  readonly name: string;
  /** The logged arguments, parsed (`toolInput`); undefined while only streamed. */
  readonly input: unknown;
}

type ClientBlock =
  | { readonly kind: "text" | "reasoning"; readonly id: string; sent: string; open: boolean; endedLive?: boolean }
  | { readonly kind: "tool"; readonly callId: string; readonly name: string; raw: string; streaming: boolean };

export class StepParts {
  readonly turn: number;
  readonly step: number;
  /** Provider calls of this step that were retried so far (new part ids per attempt). */
  #attempt = 0;
  /** The client's parts for the current attempt, by content position (contiguous from 0). */
  #blocks: ClientBlock[] = [];
  /** A live block arrived past a gap: the rest of the attempt waits for the answer. */
  #quiet = false;
  #answered = false;
  /** Tool parts the client has (any attempt), by callId: the tool's name and (once known) input. */
  readonly #tools = new Map<string, ToolCallPart>();

  constructor(turn: number, step: number) {
    this.turn = turn;
    this.step = step;
  }

  /** The chunks for one live event of this step (none once silenced or answered). */
  live(event: LiveTurnEvent): UIMessageChunk[] {
    if (this.#answered || this.#quiet) return [];
    switch (event.type) {
      case "text-start":
      case "reasoning-start": {
        if (!this.#inOrder(event.index)) return [];
        const kind = event.type === "text-start" ? "text" : "reasoning";
        const id = streamBlockId(kind, this.turn, this.step, event.index, this.#attempt);
        this.#blocks.push({ kind, id, sent: "", open: true });
        return [{ type: `${kind}-start`, id }];
      }
      case "text-delta":
      case "reasoning-delta": {
        const block = this.#blocks[event.index];
        if (block === undefined || block.kind === "tool" || !block.open) return [];
        block.sent += event.delta;
        return [{ type: `${block.kind}-delta`, id: block.id, delta: event.delta }];
      }
      case "tool-call-start": {
        if (!this.#inOrder(event.index)) return [];
        this.#blocks.push({ kind: "tool", callId: event.callId, name: event.name, raw: "", streaming: true });
        this.#tools.set(event.callId, { name: event.name, input: undefined });
        return [{ type: "tool-input-start", toolCallId: event.callId, toolName: event.name }];
      }
      case "tool-call-delta": {
        const block = this.#blocks[event.index];
        if (block?.kind !== "tool" || !block.streaming) return [];
        block.raw += event.delta;
        return [{ type: "tool-input-delta", toolCallId: block.callId, inputTextDelta: event.delta }];
      }
      case "text-end":
      case "reasoning-end": {
        // Ended as it streamed: a feed delivers a block's end only when none of its deltas was
        // dropped (turn-feed.ts, follow-blocks.ts), so the client's text is the block's whole
        // text — its part is done now, not when the step's answer is committed (a reasoning part
        // stops "thinking" as the text starts, as the AI SDK's own stream has it).
        const block = this.#blocks[event.index];
        if (block === undefined || block.kind === "tool" || !block.open) return [];
        block.open = false;
        block.endedLive = true;
        return [{ type: `${block.kind}-end`, id: block.id }];
      }
      default:
        // A tool call's end waits for the answer: its `tool-input-available` carries the logged arguments.
        return [];
    }
  }

  /** The chunks that make the client's parts equal the committed answer. */
  answer(content: readonly AssistantContent[]): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    content.forEach((block, index) => {
      const client = this.#blocks[index];
      if (block.type === "tool-call") {
        if (client !== undefined && client.kind !== "tool") chunks.push(...close(client, "not in the answer"));
        const input = toolInput(block.arguments);
        this.#tools.set(block.callId, { name: block.name, input });
        if (client?.kind === "tool") client.streaming = false;
        chunks.push({ type: "tool-input-available", toolCallId: block.callId, toolName: block.name, input });
        return;
      }
      const id = streamBlockId(block.type, this.turn, this.step, index, this.#attempt);
      if (client?.kind === block.type && client.endedLive && client.sent === block.text) return; // ended live, whole
      if (client?.kind === block.type && client.open && block.text.startsWith(client.sent)) {
        const suffix = block.text.slice(client.sent.length);
        if (suffix !== "") chunks.push({ type: `${block.type}-delta`, id, delta: suffix });
        chunks.push({ type: `${block.type}-end`, id });
        client.open = false;
        return;
      }
      // Never seen, or seen as something the answer does not hold (a listener rewrote it): sent whole.
      if (client !== undefined) chunks.push(...close(client, "not in the answer"));
      const fresh = client === undefined ? id : `${id}-c`;
      chunks.push({ type: `${block.type}-start`, id: fresh });
      if (block.text !== "") chunks.push({ type: `${block.type}-delta`, id: fresh, delta: block.text });
      chunks.push({ type: `${block.type}-end`, id: fresh });
    });
    for (const extra of this.#blocks.slice(content.length)) chunks.push(...close(extra, "not in the answer"));
    this.#answered = true;
    return chunks;
  }

  /** A provider call is retried: the attempt's open parts close, the next attempt's get new ids. */
  retry(attempt: number): UIMessageChunk[] {
    const chunks = this.close("retried");
    this.#attempt = attempt;
    this.#blocks = [];
    this.#quiet = false;
    return chunks;
  }

  /** Closes whatever is still open (the step ends without an answer, or is retried). */
  close(why: string): UIMessageChunk[] {
    return this.#blocks.flatMap((block) => close(block, why));
  }

  /** Records a tool part made from the logged call (the client missed the answer). */
  addTool(callId: string, part: ToolCallPart): void {
    this.#tools.set(callId, part);
  }

  /** The client's part for this tool call (its name and input), if it has one: outputs need one. */
  tool(callId: string): ToolCallPart | undefined {
    return this.#tools.get(callId);
  }

  #inOrder(index: number): boolean {
    if (index === this.#blocks.length) return true;
    this.#quiet = true;
    return false;
  }
}

function close(block: ClientBlock, why: string): UIMessageChunk[] {
  if (block.kind === "tool") {
    if (!block.streaming) return [];
    block.streaming = false;
    return [
      {
        type: "tool-input-error",
        toolCallId: block.callId,
        toolName: block.name,
        input: block.raw,
        errorText: `the call was cut off (${why})`,
      },
    ];
  }
  if (!block.open) return [];
  block.open = false;
  return [{ type: `${block.kind}-end`, id: block.id }];
}
