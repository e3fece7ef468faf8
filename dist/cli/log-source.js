// Where the inspection commands get a session from: a session id (read-only through the
// store, never locking or repairing) or a path to a `.jsonl` file (decoded with the store's own
// codec, read-only). Failures are CliErrors naming the file and line.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { Session, SessionError, validateSessionHeader, } from "../session/index.js";
import { defaultSessionsDir } from "../home/index.js";
import { decodeHeaderLine, firstInvalidUtf8Line, JsonlSessionStore, splitLog, StoreError } from "../store/index.js";
import { CliError } from "./errors.js";
export function openStore() {
    return new JsonlSessionStore({ root: defaultSessionsDir() });
}
/** A target is a file when it names one (has a path separator or ends in `.jsonl`). */
export function isFileTarget(target) {
    return target.includes("/") || target.endsWith(".jsonl");
}
/** The file a target refers to: the path itself, or the store's file for an id. */
export function fileOfTarget(target) {
    if (isFileTarget(target))
        return resolve(target);
    try {
        return openStore().fileOf(target);
    }
    catch (error) {
        throw asCliError(error);
    }
}
/** Reads and decodes a log file read-only (a torn final line is dropped, as the store does). */
export async function readRawLog(file, label = file) {
    let bytes;
    try {
        bytes = await readFile(file);
    }
    catch (error) {
        const code = error.code;
        if (code === "ENOENT")
            throw new CliError(label === file ? `no such file: ${file}` : `unknown session ${label} (${file} does not exist)`);
        throw new CliError(`cannot read ${file}: ${code ?? String(error)}`);
    }
    const { lines, committedBytes } = splitLog(bytes);
    if (lines.length === 0)
        throw new CliError(`${file}:1: foreign: not a Keelson session log (no complete header line)`, 1);
    // Keelson never writes invalid UTF-8: inside the committed lines it is corruption, never decoded lossily.
    const badLine = firstInvalidUtf8Line(bytes, committedBytes);
    if (badLine !== undefined)
        throw new CliError(`${file}:${badLine}: corrupt: line ${badLine} is not valid UTF-8`, 1);
    try {
        const header = decodeHeaderLine(lines[0], file);
        const events = lines.slice(1).map((line, i) => {
            try {
                return JSON.parse(line);
            }
            catch {
                throw new StoreError("corrupt", `${file}: line ${i + 2} is not valid JSON`, { file, line: i + 2 });
            }
        });
        return { file, header, events };
    }
    catch (error) {
        throw asCliError(error);
    }
}
/** Loads a session by id or file, read-only, validated like a store load. */
export async function loadLog(target) {
    if (!isFileTarget(target)) {
        const store = openStore();
        try {
            const { session } = await store.load(target, { readOnly: true });
            return { file: store.fileOf(target), session };
        }
        catch (error) {
            throw asCliError(error);
        }
        finally {
            await store.close();
        }
    }
    const raw = await readRawLog(resolve(target));
    try {
        validateSessionHeader(raw.header);
        return { file: raw.file, session: Session.fromParsedLog(raw.header, raw.events) };
    }
    catch (error) {
        if (error instanceof SessionError) {
            const line = error.code === "invalid-header" ? 1 : error.seq === undefined ? undefined : error.seq + 2;
            throw new CliError(`${raw.file}${line === undefined ? "" : `:${line}`}: ${error.code}: ${error.message}`, 1);
        }
        throw error;
    }
}
/** The events of a loaded log (a convenience for the pure folds). */
export function eventsOf(log) {
    return log.session.events;
}
function asCliError(error) {
    if (error instanceof StoreError) {
        if (error.code === "not-found")
            return new CliError(`unknown session: ${error.message}`);
        const where = error.file === undefined ? "" : `${error.file}${error.line === undefined ? "" : `:${error.line}`}: `;
        const message = error.file !== undefined && error.message.startsWith(`${error.file}:`)
            ? error.message.slice(error.file.length).replace(/^(: line \d+)?:\s*/, "")
            : error.message;
        // 1: the log itself is bad (corrupt, foreign); 2: the request was (bad id, locked, ...).
        return new CliError(`${where}${error.code}: ${message}`, error.code === "corrupt" || error.code === "foreign" ? 1 : 2);
    }
    return error;
}
//# sourceMappingURL=log-source.js.map