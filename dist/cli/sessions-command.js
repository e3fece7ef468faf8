// `keelson sessions`: every stored session, oldest first — id, created (ISO), cwd, turns, and a
// preview of the last prompt. Each log is read read-only; a foreign or broken file is listed as
// such instead of stopping the listing.
import { readdir } from "node:fs/promises";
import { describeError } from "./errors.js";
import { openStore } from "./log-source.js";
import { contentText, preview } from "./transcript.js";
import { summaryOf } from "./commands.js";
export function registerSessions(program) {
    program
        .command("sessions")
        .description(summaryOf("sessions"))
        .option("--json", "one JSON object per session")
        .action(async (flags) => {
        const store = openStore();
        const names = (await readdir(store.root).catch(() => [])).filter((n) => n.endsWith(".jsonl")).sort();
        const rows = [];
        for (const name of names) {
            const id = name.slice(0, -".jsonl".length);
            try {
                rows.push({ kind: "session", session: (await store.load(id, { readOnly: true })).session });
            }
            catch (error) {
                rows.push({ kind: "unreadable", name, problem: describeError(error) });
            }
        }
        await store.close();
        rows.sort((a, b) => createdOf(a) - createdOf(b));
        if (flags.json === true) {
            for (const row of rows)
                process.stdout.write(`${JSON.stringify(row.kind === "session" ? summary(row.session) : { file: row.name, problem: row.problem })}\n`);
            return;
        }
        if (rows.length === 0) {
            process.stdout.write(`no sessions in ${store.root}\n`);
            return;
        }
        process.stdout.write(`${["id".padEnd(36), "created".padEnd(24), "turns", "cwd", "last prompt"].join("  ")}\n`);
        for (const row of rows) {
            if (row.kind === "unreadable") {
                process.stdout.write(`${row.name.padEnd(36)}  unreadable: ${row.problem}\n`);
                continue;
            }
            const s = summary(row.session);
            process.stdout.write(`${[s.id.padEnd(36), s.created.padEnd(24), String(s.turns).padStart(5), s.cwd ?? "-", JSON.stringify(preview(s.lastPrompt ?? "", 50))].join("  ")}\n`);
        }
    });
}
function createdOf(row) {
    return row.kind === "session" ? row.session.header.createdAt : Number.MAX_SAFE_INTEGER;
}
function summary(session) {
    const last = [...session.events].reverse().find((e) => e.type === "user/message");
    return {
        id: session.id,
        created: new Date(session.header.createdAt).toISOString(),
        ...(session.header.cwd === undefined ? {} : { cwd: session.header.cwd }),
        turns: session.lastTurn,
        ...(last === undefined ? {} : { lastPrompt: contentText(last.data.content) }),
        ...(session.header.parentSession === undefined ? {} : { parentSession: session.header.parentSession }),
    };
}
//# sourceMappingURL=sessions-command.js.map