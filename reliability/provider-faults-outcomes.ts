// What an injected fault does to one attempt, per adapter flavor: the error code the loop logs for
// it, or `ok` when the attempt succeeds anyway. The plan (an outage needs a fault that fails) and
// the checks (each attempt's logged outcome) both read it.
import type { FaultKind } from "../src/emulator/index.js";

export type Flavor = "anthropic" | "openai" | "deepseek";

/** The code each adapter gives an injected fault (`ok`: the attempt succeeds anyway). */
export function expectedOutcome(fault: FaultKind | undefined, flavor: Flavor): string {
  switch (fault) {
    case undefined:
      return "ok";
    case "http-429":
      return "rate-limited";
    case "http-500":
    case "http-503":
      return "server-error";
    case "http-529":
      return "overloaded";
    case "stream-error":
      return flavor === "anthropic" ? "overloaded" : "server-error";
    case "reset":
      return "connection";
    case "stall":
      return "stalled";
    case "malformed-sse":
      return "protocol";
    case "missing-done":
      // OpenAI: finish_reason and usage arrived, only `[DONE]` is missing; Anthropic: no message_stop is a cut.
      return flavor === "anthropic" ? "connection" : "ok";
  }
}
