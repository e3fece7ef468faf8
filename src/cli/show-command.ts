// `keelson show <id | FILE>`: a readable transcript of a stored session — turns and steps, user,
// assistant and tool messages, header snapshots (with their reason) and deltas (which arms),
// the session prefix marked request-only, compactions and retries. A log written by a newer
// Keelson is shown best-effort (events this Keelson knows rendered, the others listed by seq and
// type), with the refusal on stderr and exit code 1. Everything printed is escaped for the
// terminal (terminal-text.ts): the log holds file contents and model text.
import type { Command } from "commander";
import type { EpochHeader } from "../header/index.js";
import type { Message } from "../messages/index.js";
import { type AnySessionEvent, isEventType, type SessionEvent, validateEventData } from "../session/index.js";
// Not re-exported by the session index (src/session/index.ts is another engineer's file).
import { LOG_VERSION, newerLogVersion, unknownEventFeature } from "../session/index.js";
import { describeError } from "./errors.js";
import { fileOfTarget, isFileTarget, isNewerLog, type LoadedLog, loadLog, readRawLog } from "./log-source.js";
import { contentText, indent, messageText, preview } from "./transcript.js";
import { summaryOf } from "./commands.js";
import { terminalLine, terminalText } from "./terminal-text.js";

export function registerShow(program: Command): void {
  program
    .command("show")
    .description(summaryOf("show"))
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
      out.push("");
      for (const event of session.events) out.push(...renderEvent(event as AnySessionEvent));
      if (session.openTurn !== null)
        out.push(`(turn ${session.openTurn} is still open: the writer crashed or is running)`);
      process.stdout.write(`${terminalText(out.join("\n"))}\n`);
    });
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

function renderEvent(event: AnySessionEvent): string[] {
  const at = `#${String(event.seq).padStart(3)}`;
  const line = (text: string): string => `${at} ${indent(text, "     ")}`;
  switch (event.type) {
    case "turn/start":
      return [`${at} ── turn ${event.data.turn} (${event.data.trigger})`];
    case "turn/end": {
      const r = event.data.reason;
      const why =
        r.kind === "error" ? `: ${r.message}` : r.kind === "aborted" || r.kind === "rejected" ? `: ${r.reason}` : "";
      return [`${at} ── turn ${event.data.turn} ends ${r.kind}${why}`, ""];
    }
    case "step/start":
      return [line(`step ${event.data.turn}.${event.data.step}`)];
    case "step/end":
      return [
        line(
          `step ${event.data.turn}.${event.data.step} ends${event.data.dispatched === false ? " (not dispatched)" : ""}`,
        ),
      ];
    case "user/message":
      return [line(`user: ${contentText(event.data.content)}`)];
    case "context/message":
      return [line(`context (${event.data.source}): ${contentText(event.data.content)}`)];
    case "steering/message":
      return [line(`steering (${event.data.source}): ${contentText(event.data.content)}`)];
    case "prompt/blocked":
      return [line(`prompt blocked (${event.data.reason}): ${contentText(event.data.content)}`)];
    case "assistant/message": {
      const u = event.data.usage;
      const usage =
        u === undefined
          ? ""
          : `  [in ${u.inputTokens} · cache-read ${u.cacheReadTokens} · cache-write ${u.cacheWriteTokens} · out ${u.outputTokens}]`;
      return [line(`assistant: ${contentText(event.data.content)}${usage}`)];
    }
    case "tool/call":
      return [line(`tool call ${event.data.name}(${preview(event.data.arguments, 200)}) [${event.data.callId}]`)];
    case "tool/result":
      return [
        line(
          `tool result [${event.data.callId}]${event.data.isError ? ` error${event.data.error ? ` (${event.data.error})` : ""}` : ""}: ${contentText(event.data.content)}`,
        ),
      ];
    case "request/header":
      return renderSnapshot(event as SessionEvent<"request/header">, at);
    case "request/header-delta": {
      const arms = Object.keys(event.data);
      const prefix = (event.data as { messagePrefix?: readonly Message[] }).messagePrefix;
      return [
        line(`header delta: ${arms.length === 0 ? "(empty)" : arms.join(", ")}`),
        ...(prefix === undefined ? [] : renderPrefix(prefix)),
      ];
    }
    case "llm/retry":
      return [
        line(
          `retry ${event.data.turn}.${event.data.step} attempt ${event.data.attempt}: ${event.data.code}, after ${event.data.delayMs} ms`,
        ),
      ];
    case "compact/start":
      return [
        line(
          `compaction starts (${event.data.trigger}${event.data.estimatedTokens === undefined ? "" : `, ≈${event.data.estimatedTokens} tokens`})`,
        ),
      ];
    case "compact/summary":
      return [line(`compaction summary: ${preview(JSON.stringify(event.data), 200)}`)];
    case "compact/end":
      return [line(`compaction ends${event.data.error === undefined ? "" : ` with error: ${event.data.error}`}`)];
  }
  return [line(`${(event as SessionEvent).type}`)];
}

function renderSnapshot(event: SessionEvent<"request/header">, at: string): string[] {
  const header = event.data.header as unknown as EpochHeader;
  const config = Object.entries(header.config ?? {})
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(" ");
  const tools = (header.tools ?? []).map((t) => t.name);
  const out = [
    `${at} header snapshot (${event.data.reason}): ${config}`,
    `       system: ${header.system === undefined ? "(none)" : preview(header.system, 100)}`,
    `       tools: ${tools.length === 0 ? "(none)" : tools.join(", ")}`,
  ];
  return [...out, ...renderPrefix(header.messagePrefix ?? [])];
}

function renderPrefix(prefix: readonly Message[]): string[] {
  if (prefix.length === 0) return ["       session prefix: (empty)"];
  return [
    `       session prefix — request-only (not in history), ${prefix.length} message(s):`,
    ...prefix.map((m, i) => `         [${i}] ${m.role}: ${preview(messageText(m), 160)}`),
  ];
}
