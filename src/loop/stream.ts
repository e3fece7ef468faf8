// The innermost `llm/stream` default: run the provider, assemble its chunks, emit each chunk
// live (synchronously, chunk by chunk, when the provider's stream is also a sync iterable). A partial stream (aborted or failed) never reaches history: the caller only appends a
// result whose finish is not `aborted`/`error`.
import { errorMessage, MissingPackageError } from "../errors/index.js";
import {
  type AssistantResult,
  BlockAssembler,
  type Provider,
  ProviderError,
  type ProviderRequest,
  type StreamChunk,
} from "../llm/core.js";

export async function streamProvider(
  provider: Provider,
  request: ProviderRequest,
  onChunk: (chunk: StreamChunk) => void,
): Promise<AssistantResult> {
  const assembler = new BlockAssembler();
  try {
    const stream = provider.stream(request);
    if (isIterable(stream)) {
      // Chunks already at hand (a replay's model, a script): read without a promise per chunk.
      for (const chunk of stream) {
        assembler.push(chunk);
        onChunk(chunk);
        if (assembler.finished) break;
      }
    } else {
      for await (const chunk of stream) {
        assembler.push(chunk);
        onChunk(chunk);
        if (assembler.finished) break;
      }
    }
  } catch (error) {
    if (request.signal.aborted) return { content: [], finish: "aborted" };
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
  return request.signal.aborted ? { content: [], finish: "aborted" } : assembler.result();
}

const isIterable = (value: AsyncIterable<StreamChunk>): value is AsyncIterable<StreamChunk> & Iterable<StreamChunk> =>
  typeof (value as Partial<Iterable<StreamChunk>>)[Symbol.iterator] === "function";
