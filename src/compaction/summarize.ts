// The summary call: a one-shot request that reuses the cached prefix of the conversation —
// the same system, tools, session prefix and history up to the region's end — plus one
// instruction message, so most of its input is a cache read. A prior checkpoint inside the region
// is merged into the new one (the instruction says so), never nested.
import {
  type AssistantResult,
  BlockAssembler,
  type Provider,
  ProviderError,
  type ProviderRequest,
  type ToolSchema,
  untilAborted,
} from "../llm/core.js";
import type { Message } from "../messages/index.js";

export const CHECKPOINT_OPEN = "<checkpoint>";

const INSTRUCTION = [
  "Write a checkpoint of the conversation so far, to replace it in your context.",
  "If an earlier <checkpoint> appears above, merge its content into this one instead of nesting it.",
  "Use these sections, terse and factual: Intent; Key facts; Files and commands; Errors and fixes; Pending work; Current state.",
  "Answer with the checkpoint only, wrapped in <checkpoint>…</checkpoint>. Do not call tools.",
].join("\n");

export interface SummaryCall {
  readonly provider: Provider;
  readonly model: string;
  readonly system: string;
  readonly tools: readonly ToolSchema[];
  readonly prefix: readonly Message[];
  readonly region: readonly Message[];
  readonly maxTokens: number;
  readonly sessionId: string;
  readonly signal: AbortSignal;
}

export async function summarize(call: SummaryCall): Promise<{ text: string; result: AssistantResult }> {
  const messages: Message[] = [
    ...call.prefix,
    ...call.region,
    { role: "user", content: [{ type: "text", text: INSTRUCTION }] },
  ];
  const request: ProviderRequest = Object.freeze({
    model: call.model,
    ...(call.system === "" ? {} : { system: call.system }),
    ...(call.tools.length === 0 ? {} : { tools: call.tools }),
    messages,
    maxTokens: call.maxTokens,
    signal: call.signal,
    sessionId: call.sessionId,
    ...(call.prefix.length > 0 ? { prefixLength: call.prefix.length } : {}),
  });
  const assembler = new BlockAssembler();
  // read only until the abort: a provider that ignores its signal must not hold a cancelled turn
  for await (const chunk of untilAborted(call.provider.stream(request), call.signal)) {
    assembler.push(chunk);
    if (assembler.finished) break;
  }
  if (call.signal.aborted && !assembler.finished) throw new ProviderError("aborted", "the summary call was aborted");
  const result = assembler.result();
  if (result.finish === "error" || result.finish === "aborted") {
    throw new ProviderError(
      result.error?.code ?? (result.finish === "aborted" ? "aborted" : "provider-error"),
      result.error?.message ?? `the summary call ended ${result.finish}`,
    );
  }
  const text = result.content
    .map((b) => (b.type === "text" ? b.text : ""))
    .join("")
    .trim();
  return { text: text.includes(CHECKPOINT_OPEN) ? text : `${CHECKPOINT_OPEN}\n${text}\n</checkpoint>`, result };
}
