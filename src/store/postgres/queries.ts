// The SQL the PostgreSQL store runs (schema.ts owns the tables). Times are the server's `now()`
// only: leases never trust a client clock. A session's events are its own rows from `lo` (0, or
// its seed_length when its seed is a reference) plus, through `seed_from`, its ancestors' rows
// below that bound — one recursive CTE reads the whole chain (forks of forks) in one snapshot.
// Each ancestor's rows are read by a LATERAL subquery behind `OFFSET 0` (which keeps the planner
// from flattening it): an index range scan per ancestor, whatever the size of keelson_events. A
// plain join let the planner, guessing 101 rows for the recursive CTE, hash-join a sequential
// scan of every session's events instead: 1.8 ms to read 6 rows at 12,000 events in all, 0.08
// this way (and 3–4× faster past the point where it switched to the index).

/** The chain of a session's ancestors with the seq range [lo, hi) each contributes ($1: the id). */
const CHAIN = `WITH RECURSIVE chain (id, lo, hi, seed_from) AS (
    SELECT id, CASE WHEN seed_from IS NULL THEN 0 ELSE seed_length END, next_seq, seed_from
      FROM keelson_sessions WHERE id = $1
  UNION ALL
    SELECT s.id, CASE WHEN s.seed_from IS NULL THEN 0 ELSE s.seed_length END, LEAST(c.lo, c.hi), s.seed_from
      FROM chain c JOIN keelson_sessions s ON s.id = c.seed_from
)`;

/**
 * A whole stored log in one statement (one snapshot): first a row with seq -1 holding the
 * header text and next_seq, then every event line in seq order. No row: no such session.
 */
export const LOAD_LOG = `${CHAIN}
SELECT -1::bigint AS seq, header AS line, next_seq FROM keelson_sessions WHERE id = $1
UNION ALL
SELECT e.seq, e.line, NULL FROM chain c CROSS JOIN LATERAL (
  SELECT e.seq, e.line FROM keelson_events e WHERE e.session_id = c.id AND e.seq >= c.lo AND e.seq < c.hi
  OFFSET 0) e
ORDER BY seq`;

/** Event lines of session $1 with seq in [$2, $3), through its chain, in seq order. */
export const EVENT_RANGE = `${CHAIN}
SELECT e.seq, e.line FROM chain c CROSS JOIN LATERAL (
  SELECT e.seq, e.line FROM keelson_events e
  WHERE e.session_id = c.id AND e.seq >= GREATEST(c.lo, $2) AND e.seq < LEAST(c.hi, $3)
  OFFSET 0) e
ORDER BY e.seq`;

/**
 * Publishes a new session holding a lease ($1 id, $2 header text, $3 parent_id, $4 seed_from,
 * $5 seed_length, $6 created_at, $7 cwd, $8 title, $9 next_seq, $10 owner, $11 lease ms).
 * Returns no row when the id exists.
 */
export const INSERT_SESSION = `INSERT INTO keelson_sessions
  (id, header, parent_id, seed_from, seed_length, created_at, cwd, title, next_seq,
   lease_owner, lease_epoch, lease_expires_at, lease_heartbeat_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, now() + $11 * interval '1 millisecond', now())
ON CONFLICT (id) DO NOTHING
RETURNING lease_epoch`;

/** Inserts event rows of session $1: seqs $2 (bigint[]) with lines $3 (text[]). */
export const INSERT_EVENTS = `INSERT INTO keelson_events (session_id, seq, line)
SELECT $1, s, l FROM unnest($2::bigint[], $3::text[]) AS t (s, l)`;

/**
 * The append guard (optimistic concurrency + fencing): advances next_seq from $2 to $3 only if
 * the log is at $2 and this store's lease ($4 owner, $5 epoch) is the live one, renewing it for
 * $6 ms. No row: nothing may be written (see WRITE_STATE for why).
 */
export const ADVANCE = `UPDATE keelson_sessions SET next_seq = $3, updated_at = now(), title = COALESCE(title, $7),
    lease_expires_at = now() + $6 * interval '1 millisecond', lease_heartbeat_at = now()
  WHERE id = $1 AND next_seq = $2 AND lease_owner = $4 AND lease_epoch = $5 AND lease_expires_at > now()
  RETURNING next_seq`;

/**
 * One flush as ONE statement (atomic on its own: no BEGIN/COMMIT round trips): the append guard
 * of ADVANCE ($1–$7 as there), then the rows $8 (bigint[] seqs) / $9 (text[] lines) inserted
 * only through the guard's row. One row back when the guard held (the batch is stored), with
 * `watched`: someone watches the session (`watched_until`, set by WATCHED), so the caller sends
 * the live-tail notification (NOTIFY) once this has committed — never in this statement:
 * PostgreSQL serializes notifying transactions from pre-commit to the end of their commit, WAL
 * flush included (decision 0036); unwatched appends do not notify at all. No row when the guard
 * did not hold (nothing was written).
 */
export const APPEND = `WITH guard AS (
    UPDATE keelson_sessions SET next_seq = $3, updated_at = now(), title = COALESCE(title, $7),
      lease_expires_at = now() + $6 * interval '1 millisecond', lease_heartbeat_at = now()
    WHERE id = $1 AND next_seq = $2 AND lease_owner = $4 AND lease_epoch = $5 AND lease_expires_at > now()
    RETURNING id, next_seq, watched_until > now() AS watched
  ), stored AS (
    INSERT INTO keelson_events (session_id, seq, line)
    SELECT g.id, t.s, t.l FROM guard g, unnest($8::bigint[], $9::text[]) AS t (s, l)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM stored) AS stored, coalesce(g.watched, false) AS watched
  FROM guard g`;

/**
 * Marks session $1 as watched for $2 ms more (appends notify until then); a watcher renews it
 * while it watches. Extends, never shortens, another watcher's mark.
 */
export const WATCHED = `UPDATE keelson_sessions
  SET watched_until = GREATEST(COALESCE(watched_until, now()), now() + $2 * interval '1 millisecond')
  WHERE id = $1`;

/**
 * The next seq of each watched session ($1 ids): a watch's catch-up poll, which delivers what a
 * lost notification (a writer gone between its commit and its NOTIFY) would otherwise hold back.
 */
export const NEXT_SEQS = `SELECT id, next_seq FROM keelson_sessions WHERE id = ANY($1::text[])`;

/**
 * Why a guard failed: the session's log position and lease as the server sees them now (and
 * whether it is watched: a batch found committed by a lost attempt is notified then).
 */
export const WRITE_STATE = `SELECT next_seq, lease_owner, lease_epoch, lease_expires_at > now() AS live,
    coalesce(watched_until > now(), false) AS watched
  FROM keelson_sessions WHERE id = $1`;

/** The live-tail notification of a committed append ($1 id, $2 next_seq): payload `<id> <next_seq>`, sent on its own. */
export const NOTIFY = `SELECT pg_notify('keelson_events', $1 || ' ' || $2::text)`;

/**
 * Takes the lease of session $1 for owner $2 for $3 ms: when it is free or expired (epoch + 1:
 * a take-over fences the previous holder), or already this owner's and live (epoch kept). No
 * row: held by another owner, or no such session. Returns SESSION_HEAD's columns too: a writable
 * load needs no second statement to decide how much of the log to read (#20 F21).
 */
export const TAKE_LEASE = `UPDATE keelson_sessions SET
    lease_epoch = CASE WHEN lease_owner = $2 AND lease_expires_at > now() THEN lease_epoch ELSE lease_epoch + 1 END,
    lease_owner = $2, lease_expires_at = now() + $3 * interval '1 millisecond', lease_heartbeat_at = now()
  WHERE id = $1 AND (lease_owner IS NULL OR lease_expires_at <= now() OR lease_owner = $2)
  RETURNING lease_epoch, next_seq, header, seed_from, seed_length`;

/** Renews this owner's ($1) live leases on sessions $2 (text[]) at epochs $3 (bigint[]) for $4 ms; returns the renewed ids. */
export const RENEW_LEASES = `UPDATE keelson_sessions s SET
    lease_expires_at = now() + $4 * interval '1 millisecond', lease_heartbeat_at = now()
  FROM unnest($2::text[], $3::bigint[]) AS t (id, epoch)
  WHERE s.id = t.id AND s.lease_owner = $1 AND s.lease_epoch = t.epoch AND s.lease_expires_at > now()
  RETURNING s.id`;

/** Gives up this owner's ($2) lease on session $1 at epoch $3 (a lease taken over since is left alone). */
export const CLEAR_LEASE = `UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL
  WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3`;

/** Every session's summary, oldest first. */
export const LIST = `SELECT id, created_at, floor(extract(epoch FROM updated_at) * 1000)::float8 AS updated_at,
    cwd, parent_id, title
  FROM keelson_sessions ORDER BY created_at, id COLLATE "C"`;

/** Whether a session exists and who holds its lease ($1 id). */
export const SESSION_STATE = `SELECT next_seq, lease_owner, lease_expires_at > now() AS live
  FROM keelson_sessions WHERE id = $1`;

/** What a load needs before deciding how much to read ($1 id). */
export const SESSION_HEAD = `SELECT header, next_seq, seed_from, seed_length FROM keelson_sessions WHERE id = $1`;

/** A session's own event lines with seq in [$2, $3), in seq order ($1 id). */
export const OWN_EVENTS = `SELECT seq, line FROM keelson_events WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`;
