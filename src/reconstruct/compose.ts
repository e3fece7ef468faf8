// composeRequest: the one definition of how a header and a derived history make a request.
// messages = messagePrefix ++ history; every other field comes from the header.
import type { EpochHeader } from "../header/index.js";
import type { Message } from "../messages/index.js";
import type { ModelRequest } from "../llm/core.js";

export function composeRequest(header: EpochHeader, history: readonly Message[]): ModelRequest {
  const prefix = header.messagePrefix;
  return {
    ...header.config,
    ...(header.system === undefined || header.system === "" ? {} : { system: header.system }),
    ...(header.tools === undefined || header.tools.length === 0 ? {} : { tools: header.tools }),
    messages: prefix === undefined || prefix.length === 0 ? history : [...prefix, ...history],
  };
}
