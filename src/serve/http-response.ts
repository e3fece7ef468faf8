// A streamed body on its way out: as a web `Response`, or written to a node:http ServerResponse
// — the status and headers, each chunk as the socket takes it (waiting for `drain`, so a slow
// client holds nothing here), the end. A client that goes away cancels the body; what that does
// to the turn is the body's business (`cancelOnDisconnect`).
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

/** Writes `body` to `res`; resolves when it is written or the client is gone. */
export async function writeBody(
  res: ServerResponse,
  body: ReadableStream<Uint8Array>,
  headers: Readonly<Record<string, string>>,
  options: ResponseOptions = {},
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
  try {
    res.writeHead(options.status ?? 200, options.statusText, { ...headers, ...options.headers });
    res.flushHeaders();
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone) break;
      if (res.write(value)) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        res.once("drain", resolve);
      });
      wake = undefined;
      if (gone) break;
    }
    if (!gone) res.end();
  } catch (error) {
    res.destroy();
    throw error;
  } finally {
    res.off("close", onClose);
  }
}
