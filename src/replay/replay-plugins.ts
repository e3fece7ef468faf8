// The two plugins a replay adds around the app's own. `recordedInputs` is loaded first, so its
// waterfall listeners are the outermost of the agent's: it answers, from the log, what came from
// outside the code under test — the product of `agent/prompt-submit` (the log holds only that), a
// decider's decision and an answerer's answer, and each tool call's result and post-tool context
// (unless tools run live). `stepGuard` is loaded last, so its serial listeners run after the app's:
// at `agent/tool-set` it offers the log's recorded tools (MCP) the current code does not register,
// and at `agent/pre-step` it delivers the steers and injects the log has at that step's boundary,
// and ends the turn where the log's turn was cut short (cancelled, failed, crashed).
import type { ToolSchema } from "../llm/core.js";
import { type AgentPlugin, type ApprovalDecision, subagentSpecOf } from "../loop/index.js";
import { type ToolDefinition, type ToolOutput, ToolRegistry } from "../tools/index.js";
import type { RecordedLog, RecordedResult, RecordedTurn } from "./recorded-log.js";

/** What the plugins share with the driver. */
export interface ReplayCursor {
  /** The logged turn being replayed. */
  turn: RecordedTurn | undefined;
  /** The next of its prompts to hand `agent/prompt-submit`. */
  prompt: number;
  /** Subagent calls met (their results name a child), by call id: what the child ran with. */
  readonly children: Map<string, SubagentSource>;
}

/** A subagent call's tool, and the parent's tools the child may hold, as the replayed parent has them. */
export interface SubagentSource {
  readonly spec: NonNullable<ReturnType<typeof subagentSpecOf>>;
  readonly parentTools: ToolRegistry;
  readonly model: string;
}

export interface ReplayPluginOptions {
  readonly log: RecordedLog;
  readonly cursor: ReplayCursor;
  readonly liveTools: boolean;
  readonly recordedTools: (name: string) => boolean;
  /** The tools of the logged request of (turn, step), or of the one before it. */
  readonly loggedTools: (turn: number, step: number) => readonly ToolSchema[] | undefined;
  /** Whether the log's turn sent a request at this step. */
  readonly loggedRequest: (turn: number, step: number) => boolean;
}

/** Says where a replay stopped a turn because the log's turn stops there. */
export const STOP_REASON = "replay: the log's turn ended here";

/** Turn ends after which a further request is the replay's own doing (reported), not the log's cut. */
const ENDED_BY_ITSELF: ReadonlySet<string> = new Set([
  "completed",
  "max-tokens",
  "awaiting-approval",
  "awaiting-input",
  "rejected",
]);

export function recordedInputs(options: ReplayPluginOptions, ownTools: ReadonlySet<string>): AgentPlugin {
  const { log, cursor } = options;
  const recordedCall = (name: string, result: RecordedResult | undefined): boolean =>
    !options.liveTools || ownTools.has(name) || childOf(result) !== undefined;
  return (host) => {
    host.on("agent/prompt-submit", ({ prompt }) => {
      const logged = cursor.turn?.prompts[cursor.prompt++];
      if (logged === undefined) return { action: "allow", content: prompt.content };
      return logged.action === "block"
        ? { action: "block", reason: logged.reason }
        : {
            action: "allow",
            content: logged.content,
            ...(logged.additionalContext === undefined ? {} : { additionalContext: logged.additionalContext }),
          };
    });
    host.on("approval/ask", ({ request }) => {
      const pause = log.approvals.get(request.callId);
      const answer = pause?.answer;
      if (answer !== undefined && answer.turn === pause!.turn && answer.value.kind === "approval") {
        const { kind: _kind, callId: _callId, ...decision } = answer.value;
        return decision as ApprovalDecision;
      }
      // The log ran the call without asking (another permission policy then): so does the replay.
      if (pause === undefined && log.called.has(request.callId)) return { approve: true, by: "replay" };
      return undefined; // decided in a later turn, or never: the turn pauses as the log's did
    });
    host.on("input/ask", ({ request }) => {
      const pause = log.inputs.get(request.id);
      const answer = pause?.answer;
      if (answer === undefined || answer.turn !== pause!.turn || answer.value.kind !== "input") return undefined;
      return { value: answer.value.value, ...(answer.value.by === undefined ? {} : { by: answer.value.by }) };
    });
    host.on("tools/pre-execute", ({ call }, next) => {
      const result = log.results.get(call.callId);
      const spec = childOf(result) === undefined ? undefined : subagentSpecOf(host.agent.tools.get(call.name));
      if (spec !== undefined)
        cursor.children.set(call.callId, { spec, parentTools: toolsNow(host.agent.tools), model: host.agent.model });
      if (!recordedCall(call.name, result)) return next();
      if (result === undefined)
        return {
          action: "result",
          output: {
            content: [{ type: "text", text: `replay: the log has no result for call ${call.callId}` }],
            isError: true,
          },
        };
      return { action: "result", output: outputOf(result, log, call.callId) };
    });
    host.on("tools/post-execute", ({ call }, next) => {
      const result = log.results.get(call.callId);
      if (!recordedCall(call.name, result)) return next();
      return {
        action: "accept",
        ...(result?.additionalContext === undefined ? {} : { additionalContext: result.additionalContext }),
      };
    });
    return undefined;
  };
}

export function stepGuard(options: ReplayPluginOptions, ownTools: Set<string>): AgentPlugin {
  return (host) => {
    const registered = new Map<string, { schema: ToolSchema; dispose: () => void }>();
    host.on("agent/tool-set", ({ agent, turn, step }) => {
      const inLog = options.loggedTools(turn, step) ?? [];
      // every step: nothing built when no recorded tool is in the log's request, before or now
      if (registered.size === 0 && !inLog.some((t) => options.recordedTools(t.name))) return;
      const logged = inLog.filter((t) => options.recordedTools(t.name));
      const wanted = new Map(logged.map((t) => [t.name, t]));
      for (const [name, entry] of registered) {
        if (wanted.get(name) === entry.schema) continue;
        entry.dispose();
        registered.delete(name);
        ownTools.delete(name);
      }
      for (const schema of logged) {
        if (registered.has(schema.name) || agent.tools.get(schema.name) !== undefined) continue;
        registered.set(schema.name, { schema, dispose: agent.tools.register(recordedTool(schema)) });
        ownTools.add(schema.name);
      }
    });
    host.on("agent/pre-step", ({ agent, turn, step }) => {
      const logged = options.cursor.turn;
      if (logged === undefined || logged.turn !== turn) return;
      if (!options.loggedRequest(turn, step)) {
        // The log's turn stops before this step: where it was cut short, the replay stops too;
        // where it ended by itself, the request goes out and is reported as one the log lacks.
        if (!ENDED_BY_ITSELF.has(logged.reason?.kind ?? "")) agent.cancel(STOP_REASON);
        return;
      }
      const boundary = logged.boundaries.get(step);
      for (const content of boundary?.injects ?? []) agent.inject(content).catch(() => undefined);
      for (const content of boundary?.steers ?? []) agent.steer(content).catch(() => undefined);
    });
    return undefined;
  };
}

/** A copy of a registry's tools as they are now (the agent's own loses its plugins' tools when disposed). */
function toolsNow(tools: ToolRegistry): ToolRegistry {
  const copy = new ToolRegistry();
  for (const name of tools.names()) copy.register(tools.get(name)!);
  return copy;
}

/** A tool known only from the log: its logged schema; its calls are answered from the log. */
function recordedTool(schema: ToolSchema): ToolDefinition {
  return {
    name: schema.name,
    description: schema.description ?? "",
    input: schema.inputSchema,
    readOnly: true,
    execute: () => {
      throw new Error(`${schema.name} is known only from the log: its calls are answered from the log`);
    },
  };
}

/** The child session a result names (a subagent's: `meta.subagent.session`). */
export function childOf(result: RecordedResult | undefined): string | undefined {
  const sub = result?.meta?.subagent;
  if (typeof sub !== "object" || sub === null || Array.isArray(sub)) return undefined;
  const session = (sub as { session?: unknown }).session;
  return typeof session === "string" ? session : undefined;
}

/**
 * The logged result as the tool's output. A call approved with edited arguments logged its result
 * behind a note the loop adds itself: the note is left out here, so the loop adds it once.
 */
function outputOf(result: RecordedResult, log: RecordedLog, callId: string): ToolOutput {
  const edited = log.approvals.get(callId)?.answer?.value;
  const content =
    edited?.kind === "approval" && edited.approve && edited.arguments !== undefined
      ? result.content.slice(1)
      : result.content;
  return { content, isError: result.isError, ...(result.meta === undefined ? {} : { meta: result.meta }) };
}
