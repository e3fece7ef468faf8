// JsonlSessionStore: the embedded default store. One file per session under
// `$KEELSON_HOME/sessions` (see home.ts): `<id>.jsonl` plus `<id>.lock` while a writer holds it.
//
// Durability: the first write (header + seed) is published atomically (temp file, fsync, link —
// which never clobbers — fsync of the directory). Appends are buffered and written + fsynced on
// `flush()`. A failed write is truncated back to the committed size and the batch stays
// buffered, so a retry cannot duplicate seqs. Load drops a torn final line (truncating it away
// when writable), refuses corruption inside the committed region with the file and line, and
// closes an open final turn with crash-repair closers written durably.
import { previewJson } from "../json/index.js";
import { randomBytes } from "node:crypto";
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { isSafeSessionId, Session, SessionError, validateEnvelope, validateSessionHeader, } from "../session/index.js";
import { defaultSessionsDir } from "../home/index.js";
import { decodeHeaderLine, encodeEventLine, encodeHeaderLine, firstInvalidUtf8Line, splitLog } from "./jsonl-codec.js";
import { acquireLock, releaseLock } from "./lock.js";
import { persistSession } from "./persist.js";
import { StoreError, } from "./types.js";
export class JsonlSessionStore {
    root;
    #fs;
    #writers = new Map();
    #closed = false;
    constructor(options = {}) {
        this.root = options.root ?? defaultSessionsDir();
        this.#fs = options.fs ?? nodeFs;
    }
    /** The file that holds session `id`. */
    fileOf(id) {
        if (!isSafeSessionId(id))
            throw new StoreError("invalid-id", `${previewJson(id)} is not a valid session id`);
        return join(this.root, `${id}.jsonl`);
    }
    async create(header, seed = []) {
        this.#open();
        const file = this.fileOf(header.id);
        try {
            validateSessionHeader(header);
            Session.fromLog(header, seed); // the seed must be a valid log
        }
        catch (e) {
            if (e instanceof SessionError)
                throw new StoreError("corrupt", `cannot create session: ${e.message}`, { cause: e });
            throw e;
        }
        if (this.#writers.has(header.id))
            throw new StoreError("exists", `session ${header.id} already exists (${file})`, { file });
        await this.#fs.mkdir(this.root, { recursive: true });
        await acquireLock(this.#fs, this.#lockOf(header.id), header.id);
        try {
            const bytes = encodeHeaderLine(header) + seed.map(encodeEventLine).join("");
            await this.#publish(file, bytes);
            const handle = await this.#fs.open(file, "r+"); // not "a": appends ignore the write position
            this.#writers.set(header.id, {
                file,
                handle,
                committedBytes: Buffer.byteLength(bytes),
                nextSeq: seed.length,
                buffer: [],
                flushing: Promise.resolve(),
            });
        }
        catch (e) {
            await releaseLock(this.#fs, this.#lockOf(header.id));
            throw e;
        }
    }
    append(sessionId, events) {
        this.#open();
        const writer = this.#writer(sessionId);
        events.forEach((event, i) => {
            if (event?.seq !== writer.nextSeq + i) {
                throw new StoreError("seq-gap", `session ${sessionId}: expected seq ${writer.nextSeq + i}, got ${previewJson(event?.seq)}; the batch was not buffered`);
            }
            try {
                validateEnvelope(event, event.seq);
            }
            catch (e) {
                if (e instanceof SessionError)
                    throw new StoreError("invalid-event", `session ${sessionId}: refusing to store a malformed event: ${e.message}; the batch was not buffered`, { cause: e });
                throw e;
            }
        });
        for (const event of events)
            writer.buffer.push(encodeEventLine(event));
        writer.nextSeq += events.length;
    }
    async flush(sessionId) {
        this.#open();
        const ids = sessionId === undefined ? [...this.#writers.keys()] : [sessionId];
        for (const id of ids) {
            const writer = this.#writer(id);
            const run = writer.flushing.then(() => this.#flushWriter(writer));
            writer.flushing = run.catch(() => undefined);
            await run;
        }
    }
    attach(session) {
        return persistSession(session, this);
    }
    async load(sessionId, options = {}) {
        this.#open();
        const file = this.fileOf(sessionId);
        if (this.#writers.has(sessionId)) {
            if (!options.readOnly)
                throw new StoreError("already-open", `session ${sessionId} is already open for writing in this store`, {
                    file,
                });
            await this.flush(sessionId);
        }
        const writable = !options.readOnly;
        if (writable)
            await acquireLock(this.#fs, this.#lockOf(sessionId), sessionId);
        try {
            return await this.#load(sessionId, file, options);
        }
        catch (e) {
            if (writable && !this.#writers.has(sessionId))
                await releaseLock(this.#fs, this.#lockOf(sessionId));
            throw e;
        }
    }
    async list() {
        this.#open();
        let names;
        try {
            names = await this.#fs.readdir(this.root);
        }
        catch (e) {
            if (e.code === "ENOENT")
                return [];
            throw e;
        }
        const out = [];
        for (const name of names.filter((n) => n.endsWith(".jsonl")).sort()) {
            const summary = await this.#summary(join(this.root, name));
            if (summary !== undefined)
                out.push(summary);
        }
        return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    }
    async release(sessionId) {
        const writer = this.#writers.get(sessionId);
        if (writer === undefined)
            return;
        await this.flush(sessionId); // a failure keeps the writer (and its buffer) for a retry
        this.#writers.delete(sessionId);
        await writer.handle.close();
        await releaseLock(this.#fs, this.#lockOf(sessionId));
    }
    async close() {
        if (this.#closed)
            return;
        const errors = [];
        for (const id of [...this.#writers.keys()])
            await this.release(id).catch((e) => errors.push(e));
        // A session whose flush failed stays open with its buffer: the store is not closed, and
        // closing again retries.
        if (errors.length > 0)
            throw errors[0];
        this.#closed = true;
    }
    async #load(sessionId, file, options) {
        let bytes;
        try {
            bytes = await this.#fs.readFile(file);
        }
        catch (e) {
            if (e.code === "ENOENT")
                throw new StoreError("not-found", `no session ${sessionId} (${file} does not exist)`, { file });
            throw e;
        }
        const { lines, committedBytes, tornBytes } = splitLog(bytes);
        if (lines.length === 0)
            throw new StoreError("foreign", `${file} is not a Keelson session log: it has no complete header line`, {
                file,
                line: 1,
            });
        const header = decodeHeaderLine(lines[0], file);
        if (header.id !== sessionId) {
            throw new StoreError("corrupt", `${file}: line 1 names session ${previewJson(header.id)}, not ${sessionId}`, { file, line: 1 });
        }
        const badLine = firstInvalidUtf8Line(bytes, committedBytes);
        if (badLine !== undefined) {
            throw new StoreError("corrupt", `${file}: line ${badLine} is not valid UTF-8 (inside the committed log, so it is corruption, not a torn write)`, { file, line: badLine });
        }
        const events = new Array(lines.length - 1);
        for (let i = 1; i < lines.length; i++) {
            try {
                events[i - 1] = JSON.parse(lines[i]);
            }
            catch {
                throw new StoreError("corrupt", `${file}: line ${i + 1} is not valid JSON (inside the committed log, so it is corruption, not a torn write)`, { file, line: i + 1 });
            }
        }
        let session;
        try {
            session = Session.fromParsedLog(header, events, options.session);
        }
        catch (e) {
            if (!(e instanceof SessionError))
                throw e;
            const line = e.code === "invalid-header" ? 1 : e.seq === undefined ? undefined : e.seq + 2;
            throw new StoreError("corrupt", `${file}${line === undefined ? "" : `: line ${line}`}: ${e.message}`, {
                file,
                ...(line === undefined ? {} : { line }),
                cause: e,
            });
        }
        if (options.readOnly)
            return { session, repaired: [], droppedBytes: tornBytes, needsRepair: session.openTurn !== null };
        const handle = await this.#fs.open(file, "r+"); // not "a": appends ignore the write position
        if (tornBytes > 0) {
            await handle.truncate(committedBytes);
            await handle.sync();
        }
        this.#writers.set(sessionId, {
            file,
            handle,
            committedBytes,
            nextSeq: session.length,
            buffer: [],
            flushing: Promise.resolve(),
        });
        const repaired = session.repair();
        if (repaired.length > 0) {
            this.append(sessionId, repaired);
            await this.flush(sessionId);
        }
        return { session, repaired, droppedBytes: tornBytes, needsRepair: false };
    }
    async #flushWriter(writer) {
        if (writer.buffer.length === 0)
            return;
        const pending = writer.buffer;
        writer.buffer = [];
        const bytes = Buffer.from(pending.join(""));
        try {
            let written = 0;
            while (written < bytes.length) {
                const { bytesWritten } = await writer.handle.write(bytes, written, bytes.length - written, writer.committedBytes + written);
                written += bytesWritten;
            }
            await writer.handle.sync();
            writer.committedBytes += bytes.length;
        }
        catch (cause) {
            // Roll back to the committed size; keep the batch (ahead of anything appended meanwhile).
            writer.buffer = [...pending, ...writer.buffer];
            await writer.handle.truncate(writer.committedBytes).catch(() => undefined);
            throw new StoreError("write-failed", `${writer.file}: flushing ${pending.length} event(s) failed and was rolled back: ${String(cause)}`, { file: writer.file, cause });
        }
    }
    async #publish(file, bytes) {
        const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
        const handle = await this.#fs.open(temp, "wx");
        try {
            await handle.writeFile(bytes);
            await handle.sync();
        }
        finally {
            await handle.close();
        }
        try {
            await this.#fs.link(temp, file);
        }
        catch (e) {
            if (e.code === "EEXIST")
                throw new StoreError("exists", `session file ${file} already exists; not overwritten`, { file });
            throw e;
        }
        finally {
            await this.#fs.unlink(temp).catch(() => undefined);
        }
        const dir = await this.#fs.open(this.root, "r");
        try {
            await dir.sync();
        }
        finally {
            await dir.close();
        }
    }
    async #summary(file) {
        const handle = await this.#fs.open(file, "r");
        try {
            const buf = Buffer.alloc(64 * 1024);
            const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
            const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
            if (nl < 0)
                return undefined;
            const header = decodeHeaderLine(buf.toString("utf8", 0, nl), file);
            validateSessionHeader(header);
            const { mtimeMs } = await handle.stat();
            return {
                id: header.id,
                createdAt: header.createdAt,
                updatedAt: Math.floor(mtimeMs),
                ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
                ...(header.parentSession === undefined ? {} : { parentSession: header.parentSession }),
            };
        }
        catch (e) {
            if (e instanceof StoreError || e instanceof SessionError)
                return undefined; // foreign or broken: not listed
            throw e;
        }
        finally {
            await handle.close();
        }
    }
    #writer(sessionId) {
        const writer = this.#writers.get(sessionId);
        if (writer === undefined) {
            throw new StoreError("not-open", `session ${sessionId} is not open for writing in this store (create or load it first)`);
        }
        return writer;
    }
    #lockOf(id) {
        return join(this.root, `${id}.lock`);
    }
    #open() {
        if (this.#closed)
            throw new StoreError("closed", "the store is closed");
    }
}
//# sourceMappingURL=jsonl-store.js.map