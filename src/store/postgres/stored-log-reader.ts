// How a PostgreSQL store reads a stored log into a validated Session, reading only what it does
// not already hold (known-logs.ts): a known log that is the whole stored log (same length, same
// header text) is shared as is (`Session.fromSession`, no event row read); a known log that is a
// prefix of it (another writer appended since: a fleet session that last ran on another worker)
// reads the rows after that prefix only, as a fork whose parent's prefix is known reads its own
// rows only (`Session.fromSessionAndParsed`, the new rows validated); anything else reads the
// whole chain of ancestors in one statement (LOAD_LOG) and validates it.
import { Session, type SessionOptions } from "../../session/index.js";
import { StoreError } from "../types.js";
import type { PgPool } from "./connection.js";
import type { KnownLog } from "./known-logs.js";
import { decodeOverPrefix, decodeStoredLog, metaText } from "./log-rows.js";
import { LOAD_LOG, OWN_EVENTS, SESSION_HEAD } from "./queries.js";

/** SESSION_HEAD's row: what a load needs before deciding how much to read. */
export interface StoredHead {
  readonly header: string;
  readonly next_seq: string;
  readonly seed_from: string | null;
  readonly seed_length: string;
}

/** `read`: the session's head as the caller just read it (a writable load's TAKE_LEASE returns it), else it is read here. */
export async function readStoredLog(
  pool: PgPool,
  id: string,
  where: string,
  known: (id: string) => KnownLog | undefined,
  options: SessionOptions,
  read?: StoredHead,
): Promise<Session> {
  const head = read ?? (await pool.query<StoredHead>(SESSION_HEAD, [id])).rows[0];
  if (head === undefined) throw new StoreError("not-found", `no session ${id} (${where})`);
  const length = Number(head.next_seq);
  const self = known(id);
  if (self !== undefined && self.length <= length && metaText(self.session.header) === head.header) {
    if (self.length === length) return Session.fromSession(self.session, self.session.header, length, options);
    // Another writer appended since (a fleet session that ran on another worker): its rows only.
    const tail = await pool.query<{ seq: string; line: string }>(OWN_EVENTS, [id, self.length, length]);
    const lines = linesFrom(tail.rows, self.length, length, where);
    return decodeOverPrefix(id, head.header, self.session, self.length, lines, where, options);
  }
  const seedLength = Number(head.seed_length);
  const parent = head.seed_from === null ? undefined : known(head.seed_from);
  if (parent !== undefined && parent.length >= seedLength) {
    const own = await pool.query<{ seq: string; line: string }>(OWN_EVENTS, [id, seedLength, length]);
    const lines = linesFrom(own.rows, seedLength, length, where);
    return decodeOverPrefix(id, head.header, parent.session, seedLength, lines, where, options);
  }
  const all = await pool.query<{ seq: string; line: string; next_seq: string | null }>(LOAD_LOG, [id]);
  const first = all.rows[0];
  if (first === undefined || first.seq !== "-1") throw new StoreError("not-found", `no session ${id} (${where})`);
  const lines = linesFrom(all.rows.slice(1), 0, Number(first.next_seq), where);
  return decodeStoredLog(id, first.line, lines, where, options);
}

/** The lines of rows that must hold seqs [from, to) exactly, in order; a missing row is corruption. */
function linesFrom(rows: readonly { seq: string; line: string }[], from: number, to: number, where: string): string[] {
  const lines: string[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    if (Number(rows[i]!.seq) !== from + i)
      throw new StoreError(
        "corrupt",
        `${where}: the event with seq ${from + i} is missing (found seq ${rows[i]!.seq})`,
        {
          file: where,
          line: from + i + 2,
        },
      );
    lines[i] = rows[i]!.line;
  }
  if (from + lines.length !== to)
    throw new StoreError(
      "corrupt",
      `${where}: the session row says ${to} events, but ${from + lines.length} are stored`,
      {
        file: where,
      },
    );
  return lines;
}
