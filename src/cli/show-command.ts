// `keelson show <id | FILE>`: a readable transcript of a stored session — turns and steps, user,
// assistant and tool messages, header snapshots (with their reason) and deltas (which arms),
// the session prefix marked request-only, compactions and retries — with each subagent's
// session (from the same store, or a FILE's directory) indented under the call that started it. A log written by a newer
// Keelson is shown best-effort (events this Keelson knows rendered, the others listed by seq and
// type), with the refusal on stderr and exit code 1. Each event reads as the full form of
// src/event-text's table says. Everything printed is escaped for the terminal
// (terminal-text.ts): the log holds file contents and model text.
import type { Command } from "commander";
import { eventLine } from "../event-text/index.js";
import { type AnySessionEvent, isEventType, type Session, subagentLinks, validateEventData } from "../session/index.js";
import type { SessionStore } from "../store/index.js";
// Not re-exported by the session index (src/session/index.ts is another engineer's file).
import { LOG_VERSION, newerLogVersion, unknownEventFeature } from "../session/index.js";
import { describeError } from "./errors.js";
import {
  cliErrorOf,
  fileOfTarget,
  isFileTarget,
  isNewerLog,
  type LoadedLog,
  loadLog,
  readRawLog,
  withSiblingStore,
} from "./log-source.js";
import { indent } from "./transcript.js";
import { commandSummary } from "./commands.js";
import { terminalLine, terminalText } from "./terminal-text.js";

const FULL = { form: "full" } as const;

export function registerShow(program: Command): void {
  program
    .command("show")
    .description(commandSummary("show"))
    .argument("<id|file>", "session id or path to a .jsonl log")
    .action(async (target: string) => {
      let log: LoadedLog;
      try {
        log = await loadLog(target);
      } catch (error) {
        if (!isNewerLog(error)) throw error;
        await showBestEffort(target, error);
        return;
      }
      const { file, session } = log;
      const h = session.header;
      const out = [`session ${h.id}`, `file    ${file}`, `created ${new Date(h.createdAt).toISOString()}`];
      if (h.cwd !== undefined) out.push(`cwd     ${h.cwd}`);
      if (h.parentSession !== undefined)
        out.push(`fork of ${h.parentSession} (its first ${h.seedLength ?? 0} events are the parent's)`);
      if (h.spawnedBy !== undefined)
        out.push(`subagent of ${h.spawnedBy.session} (started by its call ${h.spawnedBy.callId})`);
      out.push("");
      const hasChildren = subagentLinks(session.events, session.id, { closed: true }).length > 0;
      out.push(
        ...(hasChildren
          ? await withSiblingStore(target, (store) => transcript(session, store, new Set([session.id])))
          : await transcript(session, undefined, new Set())),
      );
      process.stdout.write(`${terminalText(out.join("\n"))}\n`);
    });
}

/**
 * A session's events in the full form, and after each call that started a subagent, that child's
 * transcript indented under it (recursively; `seen` guards a cycle of forged links).
 */
async function transcript(session: Session, store: SessionStore | undefined, seen: Set<string>): Promise<string[]> {
  const out: string[] = [];
  const links = new Map(
    store === undefined ? [] : subagentLinks(session.events, session.id, { closed: true }).map((l) => [l.resultSeq, l]),
  );
  for (const event of session.events) {
    out.push(...renderEvent(event as AnySessionEvent));
    const link = links.get(event.seq);
    if (link === undefined || store === undefined || seen.has(link.session)) continue;
    let child: Session | undefined;
    try {
      child = (await store.load(link.session, { readOnly: true })).session;
    } catch (error) {
      if (link.named) out.push(`       (subagent session ${link.session}: ${describeError(cliErrorOf(error))})`);
      continue;
    }
    seen.add(link.session);
    out.push(`       ┌─ subagent session ${link.session} (call ${link.callId})`);
    for (const line of await transcript(child, store, seen)) out.push(`       │ ${line}`);
    out.push(`       └─ end of subagent session ${link.session}`);
  }
  if (session.openTurn !== null) out.push(`(turn ${session.openTurn} is still open: the writer crashed or is running)`);
  return out;
}

/** A newer Keelson's log: everything this Keelson can read, then the refusal on stderr; exit 1. */
async function showBestEffort(target: string, refusal: unknown): Promise<void> {
  const file = fileOfTarget(target);
  const raw = await readRawLog(file, isFileTarget(target) ? file : target);
  const h = (typeof raw.header === "object" && raw.header !== null ? raw.header : {}) as Record<string, unknown>;
  const out = [
    `session ${typeof h.id === "string" ? h.id : "?"}`,
    `file    ${raw.file}`,
    `created ${typeof h.createdAt === "number" && Number.isFinite(h.createdAt) ? new Date(h.createdAt).toISOString() : "?"}`,
    `version ${JSON.stringify(h.version)}${newerLogVersion(h) === undefined ? "" : ` (this Keelson reads version ${LOG_VERSION})`}; shown best-effort`,
    "",
  ];
  raw.events.forEach((event, index) => {
    out.push(...renderBestEffort(event, index));
  });
  process.stdout.write(`${terminalText(out.join("\n"))}\n`);
  process.stderr.write(
    `keelson: ${terminalLine(describeError(refusal))} (shown best-effort: events unknown to this Keelson are listed by type only)\n`,
  );
  process.exitCode = 1;
}

/** A raw event rendered if this Keelson knows its type and payload; otherwise `#seq <type> (unknown to this Keelson)`. */
function renderBestEffort(raw: unknown, index: number): string[] {
  const record = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const seq = Number.isSafeInteger(record.seq) ? (record.seq as number) : index;
  const at = `#${String(seq).padStart(3)}`;
  if (isEventType(record.type)) {
    try {
      validateEventData(record.type, record.data, seq);
      const feature = unknownEventFeature(record);
      const rendered = renderEvent({ ...record, seq } as unknown as AnySessionEvent);
      return feature === undefined ? rendered : [...rendered, `       (${feature}: unknown to this Keelson)`];
    } catch {
      // a payload this Keelson does not understand: listed by type below
    }
  }
  const type = typeof record.type === "string" ? record.type : JSON.stringify(record.type ?? null);
  return [`${at} ${type} (unknown to this Keelson)`];
}

/** An event in the full form of src/event-text's table: turn boundaries as `──` rules, the rest indented under `#seq`. */
function renderEvent(event: AnySessionEvent): string[] {
  const at = `#${String(event.seq).padStart(3)}`;
  const line = eventLine(event, FULL);
  if (line.depth === 0) return [`${at} ── ${line.text}`, ...(line.kind === "turn-end" ? [""] : [])];
  return [`${at} ${indent(line.text, "     ")}`, ...(line.detail ?? []).map((detail) => `       ${detail}`)];
}
