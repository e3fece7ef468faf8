// `keelson verify <id | FILE>`: the structural checks (verifyLog) and a full reconstruction of
// every request over a stored log, read-only; then its subagents (checkSubagents): each child a
// call started is in the same store (a FILE's directory), links back to the call, and ended. Clean: exit 0 and one summary line. Not clean:
// exit 1 and one line per issue — `file:line: seq S: code: message` (line = seq + 2: the header
// is line 1). A log written by a newer Keelson is not clean (exit 1: it cannot be verified
// here). A path that is not a regular file, or is over the size limit, is bad input (exit 2).
// Problems quote the log (and the file name is the user's): each line is escaped for the terminal.
import type { Command } from "commander";
import { ReconstructError, reconstructRequests, verifyLog } from "../reconstruct/index.js";
import {
  checkSubagents,
  SessionError,
  type SessionEvent,
  subagentLinks,
  validateSessionMeta,
} from "../session/index.js";
import { CliError } from "./errors.js";
import {
  childState,
  cliErrorOf,
  isFileTarget,
  lineOfSeq,
  type RawLog,
  readRawTarget,
  withSiblingStore,
} from "./log-source.js";
import { commandSummary } from "./commands.js";
import { terminalLine } from "./terminal-text.js";

interface Issue {
  readonly line?: number | undefined;
  readonly seq?: number;
  readonly code: string;
  readonly message: string;
}

export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description(commandSummary("verify"))
    .argument("<id|file>", "session id or path to a .jsonl log")
    .action(async (target: string) => {
      let raw: RawLog;
      try {
        raw = await readRawTarget(target);
      } catch (error) {
        // A log that cannot even be decoded (corrupt line, foreign header) is a verify result, not bad input.
        if (!(error instanceof CliError) || error.exitCode !== 1) throw error;
        process.stdout.write(`${terminalLine(error.message)}\nnot clean: the log cannot be decoded\n`);
        process.exitCode = 1;
        return;
      }
      if (raw.newer !== undefined) {
        process.stdout.write(
          `${terminalLine((cliErrorOf(raw.newer) as CliError).message)}\nnot clean: written by a newer Keelson, this Keelson cannot verify it\n`,
        );
        process.exitCode = 1;
        return;
      }
      const issues: Issue[] = [];
      try {
        validateSessionMeta(raw.header);
      } catch (error) {
        if (!(error instanceof SessionError)) throw error;
        issues.push({ line: 1, code: error.code, message: error.message });
      }
      // By id, the log is the one the store would load under it: a file whose meta line names
      // another session is refused there (corrupt), so verify does not call it clean either.
      const named = (raw.header as { id?: unknown } | null)?.id;
      if (!isFileTarget(target) && typeof named === "string" && named !== target)
        issues.push({
          line: 1,
          code: "corrupt",
          message: `line 1 names session ${JSON.stringify(named)}, not ${target}: the store refuses this file under that id`,
        });
      const events = raw.events as readonly SessionEvent[];
      const report = verifyLog(raw.events);
      for (const issue of report.issues)
        issues.push({ ...issue, ...(issue.seq === undefined ? {} : { line: lineOfSeq(raw, issue.seq) }) });
      let requests = report.requests;
      if (report.ok) {
        try {
          requests = 0;
          for (const r of reconstructRequests(raw.events as readonly SessionEvent[])) {
            void r.request; // materialize: the fold must succeed for every request
            requests++;
          }
        } catch (error) {
          if (!(error instanceof ReconstructError)) throw error;
          issues.push({ line: lineOfSeq(raw, error.seq), seq: error.seq, code: error.code, message: error.message });
        }
      }
      // A child a call started (named by its result, or maybe left by a closed call) is checked in the same store.
      let subagents = 0;
      const id = (raw.header as { id?: unknown } | null)?.id;
      if (report.ok && typeof id === "string" && subagentLinks(events, id, { closed: true }).length > 0) {
        subagents = subagentLinks(events, id).length;
        const problems = await withSiblingStore(target, (store) =>
          checkSubagents({ id, events }, (child) => childState(store, child)),
        );
        for (const { seq, code, message } of problems) issues.push({ line: lineOfSeq(raw, seq), seq, code, message });
      }
      if (issues.length === 0) {
        process.stdout.write(
          `clean: ${report.events} events, ${report.turns} turns, ${requests} requests${subagents === 0 ? "" : `, ${subagents} subagent session(s) ended`} (${terminalLine(raw.file)})\n`,
        );
        return;
      }
      for (const issue of issues) {
        const where = `${raw.file}${issue.line === undefined ? "" : `:${issue.line}`}`;
        process.stdout.write(
          `${terminalLine(`${where}: ${issue.seq === undefined ? "" : `seq ${issue.seq}: `}${issue.code}: ${issue.message}`)}\n`,
        );
      }
      process.stdout.write(`not clean: ${issues.length} issue(s) in ${report.events} events\n`);
      process.exitCode = 1;
    });
}
