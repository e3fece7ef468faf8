// The live stream of one session (Server-Sent Events): after the events a page already has
// (`from`), every batch the source's watch delivers is sent as one `append` message carrying the
// new events and the timeline rows to refresh (from the start of the turn they continue), so an
// open page follows a running session; `notice` messages say how the source follows it (e.g.
// polling, when a PostgreSQL store's notifications do not arrive); `problem` messages carry a
// failure that does not end the stream. A comment line every 15 s keeps proxies from closing it.
import { errorMessage } from "../errors/index.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SessionEvent } from "../session/index.js";
import type { SessionViews } from "./session-views.js";
import type { InspectSource, InspectWatch, LiveNotice } from "./types.js";

export type { LiveNotice } from "./types.js";

/** The message an `append` carries. */
export interface LiveAppend {
  /** How many events the session has now. */
  readonly events: number;
  readonly appended: readonly SessionEvent[];
  /** Replace the page's rows with seq ≥ `replaceFrom` by `rows`. */
  readonly replaceFrom: number;
  readonly rows: SessionViews["rows"];
}

export async function liveStream(
  req: IncomingMessage,
  res: ServerResponse,
  streams: Set<ServerResponse>,
  source: InspectSource,
  id: string,
  from: number,
  viewsOf: (id: string) => Promise<SessionViews>,
): Promise<void> {
  res.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    Connection: "keep-alive",
    "X-Content-Type-Options": "nosniff",
  });
  res.write(": keelson inspect live\n\n");
  streams.add(res);
  let sent = from;
  let chain = Promise.resolve();
  const onEvents = (events: readonly SessionEvent[]): void => {
    chain = chain.then(async () => {
      const fresh = events.filter((e) => e.seq >= sent);
      if (fresh.length === 0 || res.writableEnded) return;
      const views = await viewsOf(id);
      const refresh = views.rowsSince(sent);
      sent = fresh.at(-1)!.seq + 1;
      const message: LiveAppend = { events: sent, appended: fresh, ...refresh };
      res.write(`event: append\ndata: ${JSON.stringify(message)}\n\n`);
    });
    chain = chain.catch((error: unknown) => onError(error));
  };
  const onError = (error: unknown): void => {
    if (!res.writableEnded) res.write(`event: problem\ndata: ${JSON.stringify({ message: errorMessage(error) })}\n\n`);
  };
  const onNotice = (notice: LiveNotice): void => {
    if (!res.writableEnded) res.write(`event: notice\ndata: ${JSON.stringify(notice)}\n\n`);
  };
  let watch: InspectWatch | undefined;
  let stopped = false;
  const ping = setInterval(() => res.write(": ping\n\n"), 15_000);
  ping.unref();
  const stop = (): void => {
    stopped = true;
    clearInterval(ping);
    streams.delete(res);
    void watch?.close();
  };
  req.on("close", stop);
  res.on("close", stop);
  watch = await source.watch(id, from, onEvents, onError, onNotice);
  if (stopped) await watch.close(); // the page left while the watch was starting
}
