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

/**
 * Reads an async stream to its end — or to the turn's abort, whichever comes first: a provider
 * that ignores its signal (a third-party one whose stream neither ends nor throws once cancelled)
 * would otherwise hold the cancelled turn, and its session, for ever. At the abort the step's
 * result is `aborted` at once, the stream is asked to close (not awaited: its `return()` may wait
 * on the same hung read), and a chunk it still hands out is dropped unseen. One race a step, not
 * a promise a chunk.
 */
function streamAsync(
  stream: AsyncIterable<StreamChunk>,
  abort: AbortState,
  assembler: BlockAssembler,
  onChunk: (chunk: StreamChunk) => void,
): Promise<AssistantResult> {
  const iterator = stream[Symbol.asyncIterator]();
  const reading = readAsync(iterator, abort, assembler, onChunk);
  if (abort.aborted) return reading;
  return new Promise((resolve) => {
    const onAbort = (): void => {
      closeQuietly(iterator);
      resolve({ content: [], finish: "aborted" });
    };
    abort.listen(onAbort);
    reading.then((result) => {
      abort.unlisten(onAbort);
      resolve(result);
    });
  });
}

async function readAsync(
  iterator: AsyncIterator<StreamChunk>,
  abort: AbortState,
  assembler: BlockAssembler,
  onChunk: (chunk: StreamChunk) => void,
): Promise<AssistantResult> {
  try {
    for (;;) {
      const read = await iterator.next();
      if (abort.aborted) break; // the step's result is settled: closed by the abort's listener
      if (read.done === true) break;
      if (take(assembler, onChunk, read.value)) {
        await iterator.return?.(); // as `for await` closes a stream left before its end
        break;
      }
    }
  } catch (error) {
    return failed(abort, error);
  }
  return resultOf(abort, assembler);
}

/** `iterator.return()`, not awaited (it may never settle either), its failure ignored. */
function closeQuietly(iterator: AsyncIterator<StreamChunk>): void {
  try {
    iterator.return?.().catch(() => {});
  } catch {
    // a return() that throws at once: nothing more to close
  }
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
