// `keelson approvals [session] [--json]`: every tool call waiting for a person's decision (or answer), across the
// store's sessions (`listPendingApprovals`: each session loaded read-only — no lock, no repair,
// so it works next to running writers), oldest first: session, call id, tool, arguments,
// reason, when it was asked. A session whose log cannot be read is said on stderr (exit 1).
// With a session: that session's and its subagents' (`sessionPauses`), a child's row naming the
// subagent session it waits in (`approve|deny <session> <callId>` finds it; `--session` chooses).
// Arguments and reasons are untrusted: escaped for the terminal, JSON lines included.
import type { Command } from "commander";
import {
  listPendingApprovals,
  type PendingApprovalsList,
  sessionPauses,
  storeReader,
  type StoredApproval,
  type StoredInput,
} from "../store/index.js";
import { commandSummary } from "./commands.js";
import { CliError, describeError } from "./errors.js";
import { cliInvocation } from "./invocation.js";
import { type CliStore, cliErrorOf, openStore } from "./log-source.js";
import { preview } from "./transcript.js";
import { terminalJson, terminalLine } from "./terminal-text.js";

export function registerApprovals(program: Command): void {
  program
    .command("approvals")
    .description(commandSummary("approvals"))
    .argument("[session]", "only this session and its subagents")
    .option("--json", "one JSON object per pending approval")
    .action(async (only: string | undefined, flags: { json?: boolean }) => {
      const store = await openStore();
      let listed: Awaited<ReturnType<typeof listPendingApprovals>>;
      try {
        listed = only === undefined ? await listPendingApprovals(store) : await oneSession(store, only);
      } finally {
        await store.close();
      }
      const { approvals, inputs, unreadable } = listed;
      for (const { sessionId, error } of unreadable)
        process.stderr.write(`keelson: ${terminalLine(sessionId)}: not read: ${terminalLine(describeError(error))}\n`);
      if (unreadable.length > 0) process.exitCode = 1;
      if (flags.json === true) {
        const lines = [
          ...approvals.map((a) => terminalJson(JSON.stringify({ kind: "approval", ...a }))),
          ...inputs.map((q) => terminalJson(JSON.stringify({ kind: "question", ...q }))),
        ];
        if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
        return;
      }
      if (approvals.length + inputs.length === 0) {
        const where = only === undefined ? store.label : `session ${only}`;
        process.stdout.write(`no pending approvals or questions in ${terminalLine(where)}\n`);
        return;
      }
      const lines = approvals.map((a) =>
        terminalLine(
          [
            placeOf(a),
            a.callId,
            `${a.tool} ${preview(a.arguments, 80)}`,
            new Date(a.requestedAt).toISOString(),
            preview(a.reason, 80),
          ].join("  "),
        ),
      );
      for (const q of inputs)
        lines.push(
          terminalLine(
            [placeOf(q), q.id, `question: ${preview(q.message, 80)}`, new Date(q.requestedAt).toISOString()].join("  "),
          ),
        );
      const nested = [...approvals, ...inputs].some((p) => p.path !== undefined);
      const via = nested ? " (a subagent's: its top-level <session>; --session <subagent> when ambiguous)" : "";
      if (approvals.length > 0)
        lines.push(`decide with: ${cliInvocation()} approve|deny <session> <callId> [--note TEXT]${via}`);
      if (inputs.length > 0) lines.push(`answer with: ${cliInvocation()} respond <session> <id> <answer>${via}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}

/** One session's pending requests and its subagents' (each read-only), as the store-wide list gives them. */
async function oneSession(store: CliStore, id: string): Promise<PendingApprovalsList> {
  const read = storeReader(store);
  const session = await read(id).catch((error: unknown) => {
    throw cliErrorOf(error);
  });
  if (session === undefined) throw new CliError(`no session ${id} in ${store.label}`);
  const { approvals, inputs } = await sessionPauses(session, read);
  const placed = <T extends { readonly path?: readonly string[] }>(p: T) => ({ sessionId: p.path?.at(-1) ?? id, ...p });
  return { approvals: approvals.map(placed), inputs: inputs.map(placed), unreadable: [] };
}

/** A row's session: a subagent's says whose (`<child> (subagent of <top>)`); a stand-in says which child it waits on. */
function placeOf(p: StoredApproval | StoredInput): string {
  const sub = "subagent" in p && p.subagent !== undefined ? ` (waits on subagent ${p.subagent})` : "";
  return p.path === undefined ? `${p.sessionId}${sub}` : `${p.sessionId} (subagent of ${p.path[0]})${sub}`;
}
