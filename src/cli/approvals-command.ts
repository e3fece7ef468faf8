// `keelson approvals [--json]`: every tool call waiting for a person's decision (or answer), across the
// store's sessions (`listPendingApprovals`: each session loaded read-only — no lock, no repair,
// so it works next to running writers), oldest first: session, call id, tool, arguments,
// reason, when it was asked. A session whose log cannot be read is said on stderr (exit 1).
// Arguments and reasons are untrusted: escaped for the terminal, JSON lines included.
import type { Command } from "commander";
import { listPendingApprovals } from "../store/index.js";
import { commandSummary } from "./commands.js";
import { describeError } from "./errors.js";
import { cliInvocation } from "./invocation.js";
import { openStore } from "./log-source.js";
import { preview } from "./transcript.js";
import { terminalJson, terminalLine } from "./terminal-text.js";

export function registerApprovals(program: Command): void {
  program
    .command("approvals")
    .description(commandSummary("approvals"))
    .option("--json", "one JSON object per pending approval")
    .action(async (flags: { json?: boolean }) => {
      const store = await openStore();
      let listed: Awaited<ReturnType<typeof listPendingApprovals>>;
      try {
        listed = await listPendingApprovals(store);
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
        process.stdout.write(`no pending approvals or questions in ${terminalLine(store.label)}\n`);
        return;
      }
      const lines = approvals.map((a) =>
        terminalLine(
          [
            a.sessionId,
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
            [q.sessionId, q.id, `question: ${preview(q.message, 80)}`, new Date(q.requestedAt).toISOString()].join(
              "  ",
            ),
          ),
        );
      if (approvals.length > 0)
        lines.push(`decide with: ${cliInvocation()} approve|deny <session> <callId> [--note TEXT]`);
      if (inputs.length > 0) lines.push(`answer with: ${cliInvocation()} respond <session> <id> <answer>`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
