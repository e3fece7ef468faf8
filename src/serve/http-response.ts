// A streamed body on its way out: as a web `Response`, or written to a node:http ServerResponse
// — the status and headers, each chunk as the socket takes it (waiting for `drain`, so a slow
// client holds nothing here), the end. A client that goes away cancels the body; what that does
// to the turn is the body's business (`cancelOnDisconnect`). On node:http, for a turn that may
// fail to start (`holdHeaders`), the status and headers go with the body's first chunk, not
// before it: a body that fails before its first chunk (made with `failBeforeOutput`,
// pull-stream.ts: the session could not be opened) is an error the caller answers with a status,
// never a 200 stream that says it failed. The first chunk is written as soon as it is read, so a
// client waits no longer for it; a follow (which cannot fail to start) gets its headers at once.
import type { ServerResponse } from "node:http";
import type { ResponseOptions } from "./types.js";

/** `body` as a web Response: status 200 unless given, the protocol's headers under the caller's. */
export function webResponse(
  body: ReadableStream<Uint8Array>,
  headers: Readonly<Record<string, string>>,
  init: ResponseOptions,
): Response {
  return new Response(body, {
    status: init.status ?? 200,
    ...(init.statusText === undefined ? {} : { statusText: init.statusText }),
    headers: { ...headers, ...init.headers },
  });
}

/**
 * Writes `body` to `res`; resolves when it is written or the client is gone. With `holdHeaders`
 * the status waits for the first chunk, and a failure to read it rejects with nothing written;
 * a failure after the status destroys the response.
 */
export async function writeBody(
  res: ServerResponse,
  body: ReadableStream<Uint8Array>,
  headers: Readonly<Record<string, string>>,
  options: ResponseOptions = {},
  holdHeaders = false,
): Promise<void> {
  const reader = body.getReader();
  let gone = false;
  let wake: (() => void) | undefined;
  const onClose = (): void => {
    if (res.writableFinished) return;
    gone = true;
    reader.cancel().catch(() => {});
    wake?.();
  };
  res.on("close", onClose);
  const writeHead = (): void => {
    res.writeHead(options.status ?? 200, options.statusText, { ...headers, ...options.headers });
  };
  try {
    if (!holdHeaders) {
      writeHead();
      res.flushHeaders();
    }
    // Held: the first chunk before the status, so that a failure to start is still the caller's to answer.
    const first = await reader.read();
    if (gone) return;
    if (holdHeaders) writeHead();
    for (let next = first; !next.done; next = await reader.read()) {
      if (gone) break;
      if (res.write(next.value)) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        res.once("drain", resolve);
      });
      wake = undefined;
      if (gone) break;
    }
    if (!gone) res.end();
  } catch (error) {
    if (res.headersSent) res.destroy();
    throw error;
  } finally {
    res.off("close", onClose);
  }
}
