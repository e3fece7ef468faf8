// What of a session's reasoning can carry over to another provider. Opaque reasoning — Anthropic
// signed or redacted thinking, an OpenAI Responses reasoning item with its encrypted content —
// is readable only by the API that produced it: every adapter sends only its own and drops the
// rest (in its pure wire mapping, so `keelson requests --wire` shows the same). A session that
// moves between providers (resume or fork with another model) then loses that reasoning; the
// adapter says so once per session through a `ProviderNotice` — by default a process warning.
import type { AssistantContent, Message, ProviderData } from "../messages/index.js";

/** The API name an Anthropic signature or redacted thinking belongs to (logs before `providerData` existed). */
export const ANTHROPIC_API = "anthropic";

/** The API whose opaque data `block` carries, or undefined when it carries none (plain text reasoning). */
export function opaqueOwner(block: AssistantContent): string | undefined {
  if (block.providerData !== undefined) return block.providerData.api;
  if (block.type === "reasoning" && (block.signature !== undefined || block.redacted === true)) return ANTHROPIC_API;
  return undefined;
}

/** `block.providerData` when it was produced by `api`, else undefined (another API's data is never sent). */
export function ownProviderData(block: AssistantContent, api: string): ProviderData | undefined {
  return block.providerData?.api === api ? block.providerData : undefined;
}

/** A notice an adapter gives about a request it sent (never an error: the request went out). */
export interface ProviderNotice {
  /** `dropped-reasoning`: opaque reasoning from another API was left out of the request. */
  readonly code: "dropped-reasoning";
  readonly message: string;
  /** The adapter's provider id. */
  readonly provider: string;
  readonly sessionId: string;
  /** How many reasoning blocks were left out, and which APIs produced them. */
  readonly count: number;
  readonly from: readonly string[];
}

export type NoticeSink = (notice: ProviderNotice) => void;

/** The default sink: a Node process warning (`KEELSON_DROPPED_REASONING`), visible on stderr. */
export const warnNotice: NoticeSink = (notice) =>
  process.emitWarning(notice.message, { code: "KEELSON_DROPPED_REASONING" });

/**
 * Opaque reasoning blocks in `messages` that `api` cannot read, with the APIs that made them. A
 * Gemini thought signature rides the text or function-call block it came with
 * (`providerData.thoughtSignature`): it is reasoning state too, and counts as one.
 */
export function foreignReasoning(messages: readonly Message[], api: string): { count: number; from: string[] } {
  let count = 0;
  const from = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type !== "reasoning" && block.providerData?.thoughtSignature === undefined) continue;
      const owner = opaqueOwner(block);
      if (owner === undefined || owner === api) continue;
      count++;
      from.add(owner);
    }
  }
  return { count, from: [...from].sort() };
}

/**
 * Per adapter instance: reports, once per session, that a request left out another API's
 * opaque reasoning. `check` scans the request's messages until the session has been reported.
 */
export class ReasoningCarryover {
  readonly #api: string;
  readonly #sink: NoticeSink;
  readonly #reported = new Set<string>();

  constructor(api: string, sink: NoticeSink = warnNotice) {
    this.#api = api;
    this.#sink = sink;
  }

  check(request: { readonly messages: readonly Message[]; readonly sessionId: string }, provider: string): void {
    if (this.#reported.has(request.sessionId)) return;
    const { count, from } = foreignReasoning(request.messages, this.#api);
    if (count === 0) return;
    this.#reported.add(request.sessionId);
    this.#sink({
      code: "dropped-reasoning",
      message: `${count} reasoning block${count === 1 ? "" : "s"} from ${from.join(", ")} not sent to ${provider} (session ${request.sessionId}): opaque reasoning is readable only by the API that produced it`,
      provider,
      sessionId: request.sessionId,
      count,
      from,
    });
  }
}
