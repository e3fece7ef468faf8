// A subagent's pauses in a reloaded page (docs/decisions/0025, "Answering a child's pause"): the
// parts the live stream gives the parent's message for a child's requests to a person
// (ui-subagent.ts), rebuilt from the child's log, so `uiMessagesFromLog(session, { subagents })`
// shows a pending child approval or question as the same part — id `<session>:<callId>`,
// `callProviderMetadata.keelson`, state — and a page that reloads can still answer it.
// `subagentLogs` reads the children a parent's log names (async, through the caller's reader:
// the serve layer does not know the store); `subagentToolParts` is pure over what it read.
import type { SessionEvent, SessionMeta } from "../session/index.js";
import {
  answeredQuestion,
  approvalPart,
  approvedBeforeAsking,
  askingPart,
  questionOf,
  resultPart,
} from "./ui-message-parts.js";
import { askedQuestion, toolInput } from "./ui-parts.js";
import { subagentPartId } from "./ui-subagent.js";
import type { AskedQuestion, SubagentCallMetadata, UIApproved, UIToolPart } from "./ui-types.js";

/** A subagent's log, and its own subagents' (by the call of this log that started each). */
export interface SubagentLog {
  /** The child's session id (`<parent>.<callId>`). */
  readonly session: string;
  readonly events: readonly SessionEvent[];
  readonly subagents: SubagentLogs;
}

/** The subagents of a log, by the tool call that started each. */
export type SubagentLogs = ReadonlyMap<string, SubagentLog>;

/** A session read read-only (`storeReader(store)` from keelson/store is one), undefined when there is none. */
export type SubagentReader = (
  id: string,
) => Promise<{ readonly header: SessionMeta; readonly events: readonly SessionEvent[] } | undefined>;

/**
 * The subagents `log` started that a person may have been asked something through — the children
 * of its calls that paused (an `approval/request`) or whose result names a child — read with
 * `read`, recursively: one read per such call, none for plain tool calls. A child that cannot be read, or whose meta does not name the call
 * (`spawnedBy`), is left out: its pause then shows as the parent's own request.
 */
export async function subagentLogs(
  log: { readonly id: string; readonly events: readonly SessionEvent[] },
  read: SubagentReader,
): Promise<SubagentLogs> {
  const calls = new Set<string>();
  for (const event of log.events)
    if (event.type === "approval/request" || (event.type === "tool/result" && namesSubagent(event)))
      calls.add((event.data as { readonly callId: string }).callId);
  const out = new Map<string, SubagentLog>();
  for (const callId of calls) {
    // The derived id (`subagentSessionId`, spelled out: serve bundles for a browser without the
    // session layer's code); an id too long to exist fails the read, and `spawnedBy` decides.
    const id = `${log.id}.${callId}`;
    let child: Awaited<ReturnType<SubagentReader>>;
    try {
      child = await read(id);
    } catch {
      continue; // unreadable now: the page shows the parent's stand-in, as without the child's log
    }
    const by = child?.header.spawnedBy;
    if (child === undefined || by?.session !== log.id || by.callId !== callId) continue;
    out.set(callId, {
      session: id,
      events: child.events,
      subagents: await subagentLogs({ id, events: child.events }, read),
    });
  }
  return out;
}

type Data<T extends SessionEvent["type"]> = SessionEvent<T>["data"];

/** A result that names the child its call ran (`meta.subagent.session`, as `subagentOfResult` reads it). */
const namesSubagent = (event: SessionEvent): boolean => {
  const sub = (event.data as Data<"tool/result">).meta?.subagent;
  return typeof sub === "object" && sub !== null && typeof (sub as { session?: unknown }).session === "string";
};

/**
 * The parts a live stream gives for `child`'s requests to a person (`path`: the sessions from
 * the top-level one down to the child), in the order the child asked, in the state its log has
 * reached: an approval (`approval-requested`, then responded, denied, output), a question asked
 * before its call runs (`input-available` with the call's input, then the call's output), a
 * question asked while its call runs (input `{ message, schema }`, then the logged answer as its
 * output). A grandchild's pause is shown by the grandchild's parts, not the child's stand-in.
 */
export function subagentToolParts(child: SubagentLog, path: readonly string[]): UIToolPart[] {
  const parts: UIToolPart[] = [];
  const at = new Map<string, number>();
  const calls = new Map<string, { readonly name: string; readonly input: unknown }>();
  const shown = new Set<string>();
  const id = (callId: string): string => subagentPartId(child.session, callId);
  const meta = (
    callId: string,
    call?: string,
    question?: AskedQuestion,
  ): { callProviderMetadata: { keelson: SubagentCallMetadata } } => ({
    callProviderMetadata: {
      keelson: {
        session: child.session,
        path: [...path],
        callId,
        ...(call === undefined ? {} : { call }),
        ...(question === undefined ? {} : { question }),
      },
    },
  });
  /** Approvals of calls that asked after them (`approvedBeforeAsking`), for their result parts. */
  const approvals = new Map<string, UIApproved>();
  const add = (part: UIToolPart): void => {
    at.set(part.toolCallId, parts.length);
    parts.push(part);
  };
  const update = (partId: string, next: (part: UIToolPart) => UIToolPart): void => {
    const index = at.get(partId);
    if (index !== undefined) parts[index] = next(parts[index]!);
  };
  // A grandchild's parts stand where its parent's stand-in would (once, however often it paused).
  const grandchild = (callId: string): boolean => {
    const log = child.subagents.get(callId);
    if (log === undefined) return false;
    if (!shown.has(callId)) parts.push(...subagentToolParts(log, [...path, log.session]));
    shown.add(callId);
    return true;
  };
  for (const event of child.events) {
    switch (event.type) {
      case "assistant/message":
        for (const block of (event.data as Data<"assistant/message">).content)
          if (block.type === "tool-call")
            calls.set(block.callId, { name: block.name, input: toolInput(block.arguments) });
        break;
      case "approval/request": {
        const d = event.data as Data<"approval/request">;
        if (grandchild(d.callId)) break;
        const partId = id(d.callId);
        const input = toolInput(d.arguments);
        add({ type: `tool-${d.tool}`, toolCallId: partId, state: "input-available", input, ...meta(d.callId) });
        update(partId, (part) => approvalPart(part, event));
        break;
      }
      case "approval/decision":
        update(id((event.data as Data<"approval/decision">).callId), (part) => approvalPart(part, event));
        break;
      case "input/request": {
        const d = event.data as Data<"input/request">;
        if (d.callId === undefined) {
          const partId = id(d.id);
          if (at.has(partId)) {
            // Approved, then asking: the approval's part asks now (as live, restated in place).
            update(partId, (part) => {
              const approved = approvedBeforeAsking(part);
              if (approved !== undefined) approvals.set(partId, approved);
              return askingPart(part, d);
            });
            break;
          }
          const call = calls.get(d.id) ?? { name: d.source, input: undefined };
          add({
            type: `tool-${call.name}`,
            toolCallId: id(d.id),
            state: "input-available",
            input: call.input,
            ...meta(d.id, undefined, askedQuestion(d)),
          });
        } else {
          const input = { message: d.message, schema: d.schema };
          add({
            type: `tool-${d.source}`,
            toolCallId: id(d.id),
            state: "input-available",
            input,
            ...meta(d.id, d.callId, askedQuestion(d)),
          });
        }
        break;
      }
      case "input/response": {
        // A question asked during its call ends with the answer (the call's own result is no part).
        const d = event.data as Data<"input/response">;
        update(id(d.id), (part) => (questionOf(part) ? answeredQuestion(part, d.value) : part));
        break;
      }
      case "tool/result": {
        const d = event.data as Data<"tool/result">;
        if (grandchild(d.callId)) break;
        update(id(d.callId), (part) => (questionOf(part) ? part : resultPart(part, d, approvals.get(id(d.callId)))));
        break;
      }
    }
  }
  return parts;
}
