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

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    if (!isLoopBuilt(request)) {
      const summary = this.#log.summaries[this.#summaries++];
      if (summary === undefined) {
        yield failure("the log has no compaction summary here: the replay compacted where the log did not");
        return;
      }
      yield* message([{ type: "text", text: summary.text }], summary.usage, "stop");
      return;
    }
    const output = this.#position.output();
    this.#position.served();
    if (output === undefined || output.kind === "none") {
      this.#position.stop("replay: the log's turn ended here");
      yield { type: "finish", reason: "aborted" };
      return;
    }
    if (output.kind === "failure") {
      yield {
        type: "finish",
        reason: "error",
        error: {
          message: output.message,
          retryable: false,
          ...(output.code === undefined ? {} : { code: output.code }),
        },
      };
      return;
    }
    const finish = output.stopReason;
    yield* message(
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

function failure(message: string): StreamChunk {
  return { type: "finish", reason: "error", error: { message, code: "replay-diverged", retryable: false } };
}

/** A logged answer as chunks: each block opened, filled in one delta, closed; then usage and finish. */
function* message(
  content: readonly AssistantContent[],
  usage: Usage | undefined,
  finish: "stop" | "tool-calls" | "max-tokens",
): Generator<StreamChunk> {
  for (let index = 0; index < content.length; index++) {
    const block = content[index]!;
    if (block.type === "tool-call") {
      yield { type: "block-start", index, block: { type: "tool-call", callId: block.callId, name: block.name } };
      yield { type: "tool-call-delta", index, argumentsDelta: block.arguments };
    } else if (block.type === "reasoning") {
      yield { type: "block-start", index, block: { type: "reasoning", ...(block.redacted ? { redacted: true } : {}) } };
      yield {
        type: "reasoning-delta",
        index,
        text: block.text,
        ...(block.signature === undefined ? {} : { signature: block.signature }),
      };
    } else {
      yield { type: "block-start", index, block: { type: "text" } };
      yield { type: "text-delta", index, text: block.text };
    }
    yield { type: "block-end", index };
  }
  if (usage !== undefined) yield { type: "usage", usage }; // none logged: none reported (compaction anchors on it)
  yield { type: "finish", reason: finish };
}
