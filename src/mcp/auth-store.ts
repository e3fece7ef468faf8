// Where OAuth client registrations and tokens of MCP servers are kept: `fileAuthStore(dir)` — one
// JSON file per server URL (`<sha256 of the URL, 16 hex>.json`), the folder 0700 and each file
// 0600, written to a temporary file and renamed (never half-written) — or `memoryAuthStore()`.
// Nothing here logs or prints a record: tokens leave only in an Authorization header.
import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { McpError, type McpAuthRecord, type McpAuthStore } from "./types.js";

/** The key a server's record is kept under: its URL's origin and path (no query, no fragment). */
export function authUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** Records as files of mode 0600 in `dir` (created 0700 when first written). */
export function fileAuthStore(dir: string): McpAuthStore & { list(): Promise<McpAuthRecord[]> } {
  const file = (url: string): string =>
    join(dir, `${createHash("sha256").update(authUrl(url)).digest("hex").slice(0, 16)}.json`);
  const read = async (path: string): Promise<McpAuthRecord | undefined> => {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      return JSON.parse(text) as McpAuthRecord;
    } catch (cause) {
      throw new McpError("invalid-config", `${path}: the stored MCP authorization is not valid JSON`, { cause });
    }
  };
  return {
    async load(url) {
      const record = await read(file(url));
      return record?.url === authUrl(url) ? record : undefined;
    },
    async save(record) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      const target = file(record.url);
      const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(temp, `${JSON.stringify({ ...record, url: authUrl(record.url) })}\n`, { mode: 0o600 });
      await rename(temp, target);
    },
    async delete(url) {
      const path = file(url);
      const existed = (await read(path)) !== undefined;
      await rm(path, { force: true });
      return existed;
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if ((error as { code?: unknown }).code === "ENOENT") return [];
        throw error;
      }
      const records: McpAuthRecord[] = [];
      for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
        const record = await read(join(dir, name));
        if (record !== undefined) records.push(record);
      }
      return records;
    },
  };
}

/** Records in this process only (tests, an application that keeps nothing on disk). */
export function memoryAuthStore(): McpAuthStore {
  const records = new Map<string, McpAuthRecord>();
  return {
    load: async (url) => records.get(authUrl(url)),
    save: async (record) => {
      records.set(authUrl(record.url), { ...record, url: authUrl(record.url) });
    },
    delete: async (url) => records.delete(authUrl(url)),
  };
}
