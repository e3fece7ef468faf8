// The replay's model: a Provider built from the log. A step's request is answered with what the
// model answered that step in the log (streamed through the chunk protocol, so the loop assembles
// it as it assembled the original; usage and finish reason as logged), a provider failure with
// the logged failure, and a step the log cut short (cancelled, disposed, crashed) by ending the
// turn there. Any other request (a compaction's summary call) gets the next logged summary.
import { isLoopBuilt } from "../loop/index.js";
import type { Provider, ProviderRequest, StreamChunk } from "../llm/core.js";
import type { AssistantContent, Usage } from "../messages/index.js";
import type { RecordedLog, RecordedOutput } from "./recorded-log.js";

export interface ReplayPosition {
  /** The logged answer of the step the replay is at, if the log has that step. */
  output(): RecordedOutput | undefined;
  /** Ends the replayed turn here (the log's turn ended here without an answer). */
  stop(reason: string): void;
  /** Called when a request is served: the log's late injects arrive now. */
  served(): void;
}

export class ReplayProvider implements Provider {
  readonly id = "replay";
  readonly #log: RecordedLog;
  readonly #position: ReplayPosition;
  #summaries = 0;

  constructor(log: RecordedLog, position: ReplayPosition) {
    this.#log = log;
    this.#position = position;
  }

  /**
   * The answer's chunks, worked out when the loop first pulls one (as a generator's body would
   * run) and then handed out from an array — synchronously to the loop (an async generator cost
   * several promises per chunk).
   */
  stream(request: ProviderRequest): AsyncIterable<StreamChunk> & Iterable<StreamChunk> {
    return chunksOf(() => this.#chunks(request));
  }

  #chunks(request: ProviderRequest): StreamChunk[] {
    if (!isLoopBuilt(request)) {
      const summary = this.#log.summaries[this.#summaries++];
      if (summary === undefined)
        return [failure("the log has no compaction summary here: the replay compacted where the log did not")];
      return message([{ type: "text", text: summary.text }], summary.usage, "stop");
    }
    const output = this.#position.output();
    this.#position.served();
    if (output === undefined || output.kind === "none") {
      this.#position.stop("replay: the log's turn ended here");
      return [{ type: "finish", reason: "aborted" }];
    }
    if (output.kind === "failure") {
      return [
        {
          type: "finish",
          reason: "error",
          error: {
            message: output.message,
            retryable: false,
            ...(output.code === undefined ? {} : { code: output.code }),
          },
        },
      ];
    }
    const finish = output.stopReason;
    return message(
      output.content,
      output.usage,
      finish === "stop" || finish === "tool-calls" || finish === "max-tokens"
        ? finish
        : output.content.some((b) => b.type === "tool-call")
          ? "tool-calls"
          : "stop",
    );
  }
}

/**
 * The chunks `make` returns, called at the first pull: iterable both ways — the loop reads a sync
 * iterable without a promise per chunk (src/loop/stream.ts); any other reader gets the async one.
 */
function chunksOf(make: () => StreamChunk[]): AsyncIterable<StreamChunk> & Iterable<StreamChunk> {
  return new RecordedChunks(make);
}

class RecordedChunks implements AsyncIterable<StreamChunk>, Iterable<StreamChunk> {
  readonly #make: () => StreamChunk[];

  constructor(make: () => StreamChunk[]) {
    this.#make = make;
  }

  [Symbol.iterator](): Iterator<StreamChunk> {
    return this.#make()[Symbol.iterator]();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamChunk> {
    const make = this.#make;
    let chunks: StreamChunk[] | undefined;
    let at = 0;
    return {
      next: () => {
        chunks ??= make();
        return Promise.resolve(
          at < chunks.length ? { done: false, value: chunks[at++]! } : { done: true, value: undefined },
        );
      },
      return: () => {
        at = Number.POSITIVE_INFINITY;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}

function failure(message: string): StreamChunk {
  return { type: "finish", reason: "error", error: { message, code: "replay-diverged", retryable: false } };
}

/** A logged answer as chunks: each block opened, filled in one delta, closed; then usage and finish. */
function message(
  content: readonly AssistantContent[],
  usage: Usage | undefined,
  finish: "stop" | "tool-calls" | "max-tokens",
): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  for (let index = 0; index < content.length; index++) {
    const block = content[index]!;
    if (block.type === "tool-call") {
      chunks.push(
        { type: "block-start", index, block: { type: "tool-call", callId: block.callId, name: block.name } },
        { type: "tool-call-delta", index, argumentsDelta: block.arguments },
      );
    } else if (block.type === "reasoning") {
      chunks.push(
        { type: "block-start", index, block: { type: "reasoning", ...(block.redacted ? { redacted: true } : {}) } },
        {
          type: "reasoning-delta",
          index,
          text: block.text,
          ...(block.signature === undefined ? {} : { signature: block.signature }),
        },
      );
    } else {
      chunks.push(
        { type: "block-start", index, block: { type: "text" } },
        { type: "text-delta", index, text: block.text },
      );
    }
    chunks.push({ type: "block-end", index });
  }
  if (usage !== undefined) chunks.push({ type: "usage", usage }); // none logged: none reported (compaction anchors on it)
  chunks.push({ type: "finish", reason: finish });
  return chunks;
}
