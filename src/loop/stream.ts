// The innermost `llm/stream` default: run the provider, assemble its chunks, emit each chunk
// live. A partial stream (aborted or failed) never reaches history: the caller only appends a
// result whose finish is not `aborted`/`error`. A stream that is also a sync iterable (chunks
// already at hand: the replay's model) is read in a plain loop and its result returned at once,
// without a promise (decision 0032); any other is read with `for await`. Whether the step was
// aborted is read from the turn's `AbortState` (request.signal is the provider's).
import { errorMessage, MissingPackageError } from "../errors/index.js";
import {
  type AssistantResult,
  BlockAssembler,
  type Provider,
  ProviderError,
  type ProviderRequest,
  type StreamChunk,
} from "../llm/core.js";
import type { AbortState } from "../tools/index.js";

export function streamProvider(
  provider: Provider,
  request: ProviderRequest,
  abort: AbortState,
  onChunk: (chunk: StreamChunk) => void,
): AssistantResult | Promise<AssistantResult> {
  const assembler = new BlockAssembler();
  try {
    const stream = provider.stream(request);
    if (!isIterable(stream)) return streamAsync(stream, abort, assembler, onChunk);
    for (const chunk of stream) if (take(assembler, onChunk, chunk)) break;
  } catch (error) {
    return failed(abort, error);
  }
  return resultOf(abort, assembler);
}

async function streamAsync(
  stream: AsyncIterable<StreamChunk>,
  abort: AbortState,
  assembler: BlockAssembler,
  onChunk: (chunk: StreamChunk) => void,
): Promise<AssistantResult> {
  try {
    for await (const chunk of stream) if (take(assembler, onChunk, chunk)) break;
  } catch (error) {
    return failed(abort, error);
  }
  return resultOf(abort, assembler);
}

/** One chunk assembled, then emitted live; true once the answer is finished. */
function take(assembler: BlockAssembler, onChunk: (chunk: StreamChunk) => void, chunk: StreamChunk): boolean {
  assembler.push(chunk);
  onChunk(chunk);
  return assembler.finished;
}

/** The assembled answer, unless the step was aborted meanwhile (a partial stream never counts). */
const resultOf = (abort: AbortState, assembler: BlockAssembler): AssistantResult =>
  abort.aborted ? { content: [], finish: "aborted" } : assembler.result();

/** A provider that threw (or a stream that broke the protocol) as an error result. */
function failed(abort: AbortState, error: unknown): AssistantResult {
  if (abort.aborted) return { content: [], finish: "aborted" };
  if (error instanceof ProviderError) {
    return {
      content: [],
      finish: "error",
      error: {
        message: error.message,
        code: error.code,
        retryable: error.retryable,
        ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      },
    };
  }
  return {
    content: [],
    finish: "error",
    // a provider SDK the application did not install keeps its code: the fix is an install
    error: {
      message: errorMessage(error),
      code: error instanceof MissingPackageError ? error.code : "provider-failed",
    },
  };
}

const isIterable = (value: AsyncIterable<StreamChunk>): value is AsyncIterable<StreamChunk> & Iterable<StreamChunk> =>
  typeof (value as Partial<Iterable<StreamChunk>>)[Symbol.iterator] === "function";
