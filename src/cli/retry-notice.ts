// The retry notice: one stderr line per `llm/retry` the loop logs, naming the endpoint, so a
// headless run against a provider that is down or silent says so as it retries instead of
// waiting quietly. The loop already logs each retry; this only listens.
import type { Agent } from "../loop/index.js";
import { isEventOf, type SessionEvent } from "../session/index.js";

/** The notice line for an `llm/retry` event, or `undefined` for any other event. */
export function retryNoticeLine(event: SessionEvent, baseURL: string): string | undefined {
  if (!isEventOf(event, "llm/retry")) return undefined;
  const { code, attempt, delayMs } = event.data;
  const wait = delayMs >= 1000 ? `${(delayMs / 1000).toFixed(1)} s` : `${delayMs} ms`;
  return `keelson: ${code} from ${baseURL}; retrying in ${wait} (attempt ${attempt + 1})\n`;
}

/** Writes a retry notice for every `llm/retry` of `agent`'s session. */
export function attachRetryNotice(agent: Agent, baseURL: string, write: (line: string) => void): void {
  agent.hooks.on("session/event", ({ event }) => {
    const line = retryNoticeLine(event, baseURL);
    if (line !== undefined) write(line);
  });
}
