// The SQL of the turn queue (fleet-schema.ts owns the tables; the session rows and their lease
// columns are the PostgreSQL store's, src/store/postgres/schema.ts). Times are the server's
// `now()` only. Lock order, everywhere: a session row before any of its turn rows — the claim
// locks the session, then its turns; a worker's own updates touch one turn row — so claims
// cannot deadlock with each other or with workers (the liveness sweep locks `keelson_workers` rows,
// then session rows, and nothing locks them the other way round: worker-liveness.ts).
import { LIVE_WORKERS, LOCK_HELD } from "./worker-liveness.js";

/**
 * The notification channel of turn status changes; payload `<turn id> <status>`, an enqueue's
 * `<turn id> queued <profile>` (profile names have no spaces: a worker that does not serve it is
 * not woken) and a claim's `<turn id> running <worker id>` (who won the race: claim-race.ts).
 */
export const TURNS_CHANNEL = "keelson_turns";

/**
 * The workers' channel (#20 F21, decision 0030): only what a worker needs to claim — an
 * enqueue's `<turn id> queued <profile>` (a recovered turn's `<turn id> queued`) and a claim's
 * `<turn id> running <worker id>` — sent beside the same notification on TURNS_CHANNEL. A worker
 * LISTENs on it only while one of its slots may claim, so a busy worker is not woken by every
 * turn of the fleet, and never by a turn's end.
 */
export const QUEUE_CHANNEL = "keelson_queue";

/**
 * Enqueues a turn ($1 session, $2 prompt, $3 profile); returns its id and profile. Notified after
 * its commit (`<id> queued <profile>`, NOTIFY_TURNS: decision 0036).
 */
export const ENQUEUE = `INSERT INTO keelson_turns (session_id, prompt, profile) VALUES ($1, $2, $3)
  RETURNING id::text AS id, profile`;

/**
 * `pg_advisory_xact_lock` class of a session's queued answers: ENQUEUE_DECISION runs after it in
 * one transaction, so two enqueues for one session at the same instant are serialized — the
 * second's statement sees the first's row (its snapshot is taken after the lock), and is that
 * turn's id or refused at once. Key: `hashtext(session id)` ("kldq" in ASCII: not the workers' class).
 */
export const ANSWER_LOCK_CLASS = 0x6b6c6471;
export const LOCK_SESSION_ANSWERS = `SELECT pg_advisory_xact_lock(${ANSWER_LOCK_CLASS}, hashtext($1))`;

/**
 * Enqueues a decision on a pending approval, or an answer to a pending question ($1 session, $2
 * prompt column: a label, $3 profile, $4 the decision as jsonb text), as a continuation any worker
 * of the profile runs — unless an open continuation of the session (queued or running) already
 * carries one for the same request ($5 kind, `decision` or `response`; $6 the call's or the
 * question's id; $7 the subagent's session or null): then nothing is inserted and that turn's id,
 * profile and decision come back as `earlier` (the client returns it when it decides the same, and
 * refuses it otherwise). Run after LOCK_SESSION_ANSWERS in one transaction: alone, two enqueues
 * at the same instant could both insert (neither sees the other's uncommitted row). Notified like
 * a turn, after its commit, when it inserted.
 */
export const ENQUEUE_DECISION = `WITH earlier AS (
    SELECT id, profile, decision FROM keelson_turns
    WHERE session_id = $1 AND status IN ('queued', 'running') AND decision IS NOT NULL
      AND COALESCE(decision->>'kind', 'decision') = $5
      AND (CASE WHEN $5 = 'response' THEN decision->>'id' ELSE decision->>'callId' END) = $6
      AND COALESCE(decision->>'session', '') = COALESCE($7::text, '')
    ORDER BY id LIMIT 1
  ), inserted AS (
    INSERT INTO keelson_turns (session_id, prompt, profile, decision)
    SELECT $1, $2, $3, $4::jsonb WHERE NOT EXISTS (SELECT 1 FROM earlier)
    RETURNING id::text AS id, profile
  )
  SELECT id, profile, NULL::jsonb AS earlier FROM inserted
  UNION ALL SELECT id::text, profile, decision FROM earlier`;

/** The oldest queued turn of each profile not among $1 (text[]): turns no worker of those profiles runs. */
export const UNSERVED_QUEUED = `SELECT profile, min(id)::text AS id FROM keelson_turns
  WHERE status = 'queued' AND NOT (profile = ANY ($1::text[]))
  GROUP BY profile ORDER BY min(id) LIMIT 20`;

/** Whether session $1 exists. */
export const SESSION_EXISTS = "SELECT 1 FROM keelson_sessions WHERE id = $1";

/**
 * The claim's first step: the session to serve next, locked (SKIP LOCKED: a session another
 * worker is claiming is passed over; NO KEY UPDATE, so an enqueue's foreign-key check on the
 * session row neither blocks it nor is blocked). A session qualifies when its lease is free or expired and
 * its oldest open turn (queued, or running under a lease that lapsed: its worker died) is the
 * oldest among such sessions; a queued head must be one of this worker's profiles ($1 text[]),
 * a running head is an orphan any worker recovers. A session whose turn runs under a live lease
 * is never a candidate: one running turn per session. Affinity: a session among $2 (text[], the
 * ones this worker served lately) whose stored next_seq is still the one at the same index of $5
 * (bigint[], the length of the log this worker's store holds: no other worker ran it since)
 * counts as queued $3 ms earlier than it was — it goes ahead of turns queued less than $3 ms
 * before it, never of older ones — so a session's next turn tends to stay on the worker that has
 * its log loaded, instead of being read by another (#20 F21; decision 0035). Orphans are looked
 * for only when $4 is true (that search reads every running turn; the worker asks for it on a
 * timer). The pick is the function `keelson_pick_session` (fleet schema 6, fleet-schema.ts;
 * decisions 0034, 0035 — schema 7): a few index reads whatever the backlog — it read every open
 * turn of the fleet before — and only the session it returns is locked (to the end of the
 * caller's transaction).
 */
export const PICK_SESSION = `SELECT session_id AS id, next_seq::text AS next_seq
  FROM keelson_pick_session($1::text[], $2::text[], $5::bigint[], $3::double precision, $4::boolean)`;

/**
 * The claim in one statement (#20 F21; autocommit: its own transaction), for the common case:
 * the session PICK_SESSION picks ($1–$3, held next_seqs $8, orphans $7) has a queued head ($4 owner) that had
 * fewer than $6 attempts and no running turn to recover. Then, as the full claim does: the head
 * is marked running under epoch + 1 and the lease is taken for $5 ms (fencing the previous
 * holder) — the lease only when the head was marked, which re-checks `status = 'queued'` on the
 * row's latest version (a turn finished since the statement's snapshot is not claimed). The
 * caller notifies `<id> running <owner>` once this has committed (NOTIFY_TURNS, decision 0036).
 * The session's head (SESSION_HEAD's columns) comes back for
 * the worker's writable load (store `adoptLease`). Returns no row when no session qualifies; `turn_id` null
 * when one does but needs the full claim (claim-turn.ts: a dead worker's turn, too many attempts).
 */
export const CLAIM_HEAD = `WITH p AS (
    SELECT session_id AS id, lease_epoch, head_id, head_status
    FROM keelson_pick_session($1::text[], $2::text[], $8::bigint[], $3::double precision, $7::boolean)
  ), r AS (
    UPDATE keelson_turns t SET status = 'running', attempts = t.attempts + 1, claimed_by = $4, claimed_at = now(),
      claim_epoch = p.lease_epoch + 1, start_seq = NULL, started_at = NULL, updated_at = now()
    FROM p
    WHERE t.id = p.head_id AND p.head_status = 'queued' AND t.status = 'queued' AND t.attempts < $6
      AND NOT EXISTS (SELECT 1 FROM keelson_turns o WHERE o.session_id = p.id AND o.status = 'running')
    RETURNING t.id::text AS id, t.session_id, t.prompt, t.profile, t.attempts, t.decision, t.claim_epoch::text AS epoch
  ), l AS (
    UPDATE keelson_sessions s SET lease_owner = $4, lease_epoch = s.lease_epoch + 1,
      lease_expires_at = now() + $5 * interval '1 millisecond', lease_heartbeat_at = now()
    FROM r WHERE s.id = r.session_id
    RETURNING s.lease_epoch::text AS lease_epoch, s.header, s.next_seq::text AS next_seq, s.seed_from,
      s.seed_length::text AS seed_length
  )
  SELECT p.id AS session_id, r.id AS turn_id, r.prompt, r.profile, r.attempts, r.decision, r.epoch,
    l.lease_epoch, l.header, l.next_seq, l.seed_from, l.seed_length
  FROM p LEFT JOIN r ON true LEFT JOIN l ON true`;

/**
 * Takes the (locked, free or expired) lease of session $1 for owner $2 for $3 ms: epoch + 1,
 * which fences whoever held it before — the store's append guard checks the epoch in every
 * flush's transaction. Same columns and meaning as the store's own take-over.
 */
export const TAKE_SESSION = `UPDATE keelson_sessions SET lease_owner = $2, lease_epoch = lease_epoch + 1,
    lease_expires_at = now() + $3 * interval '1 millisecond', lease_heartbeat_at = now()
  WHERE id = $1 RETURNING lease_epoch::text AS lease_epoch, next_seq::text AS next_seq`;

/** Gives up owner $2's lease on session $1 at epoch $3 (a lease taken over since is left alone). */
export const CLEAR_SESSION = `UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL
  WHERE id = $1 AND lease_owner = $2 AND lease_epoch = $3`;

/**
 * Recovers session $1's running turns that never started, or whose log did not grow past where
 * they started (nothing they did was committed), after its lease was taken over at log length
 * $2: they are queued again, to run once on a later claim. One that had started (start_seq set:
 * its prompt was sent, so the model may have been called) is counted in started_attempts —
 * the log holds each turn once; model calls are at least once.
 */
export const REQUEUE_UNSTARTED = `UPDATE keelson_turns SET status = 'queued', updated_at = now(),
    started_attempts = started_attempts + CASE WHEN start_seq IS NULL THEN 0 ELSE 1 END
  WHERE session_id = $1 AND status = 'running' AND (start_seq IS NULL OR start_seq >= $2)
  RETURNING id::text AS id`;

/**
 * Adopts session $1's running turn whose log grew past where it started (log length $2): its
 * prompt is in the log, so it is never run again. The claiming worker ($3, lease epoch $4) takes
 * it over only to close it: it loads the session writable (crash repair closes the open turn,
 * durably) and records how the log says the turn ended (MARK_FINISHED). Until then it stays
 * `running`, so a claimer that dies before closing it leaves it to the next claim.
 */
export const ADOPT_STARTED = `UPDATE keelson_turns SET claimed_by = $3, claim_epoch = $4, updated_at = now()
  WHERE session_id = $1 AND status = 'running' AND start_seq IS NOT NULL AND start_seq < $2
  RETURNING id::text AS id, start_seq::text AS start_seq, attempts`;

/** Session $1's oldest queued turn (ordered by the bigint column: the text alias would sort "10" before "4"). */
export const HEAD_QUEUED = `SELECT t.id::text AS id, t.prompt, t.profile, t.attempts, t.started_attempts, t.decision
  FROM keelson_turns t
  WHERE t.session_id = $1 AND t.status = 'queued' ORDER BY t.id LIMIT 1`;

/** Marks turn $1 running for owner $2 under lease epoch $3. */
export const MARK_RUNNING = `UPDATE keelson_turns SET status = 'running', attempts = attempts + 1, claimed_by = $2,
    claimed_at = now(), claim_epoch = $3, start_seq = NULL, started_at = NULL, updated_at = now()
  WHERE id = $1 RETURNING attempts`;

/** Fails turn $1 that was claimed too often without its log ever saving anything ($2: the error). */
export const MARK_ABANDONED = `UPDATE keelson_turns SET status = 'failed', error = $2, finished_at = now(), updated_at = now()
  WHERE id = $1`;

/**
 * Notifies each `<id> <status>[ <detail>]` in $1 (text[]) on TURNS_CHANNEL, and the queued and
 * running ones on QUEUE_CHANNEL too (the workers'), in order. Sent on its own, after the change it
 * announces has committed (notify-turns.ts, decision 0036): a transaction that notifies holds
 * PostgreSQL's notify lock from its pre-commit to the end of its commit, so one that also wrote
 * rows would hold it across its WAL flush; this one writes nothing and holds it for the queue
 * append only.
 */
export const NOTIFY_TURNS = `SELECT pg_notify(c, p) FROM unnest($1::text[]) WITH ORDINALITY AS m (p, n),
    LATERAL (VALUES (1, '${TURNS_CHANNEL}'), (2, CASE WHEN split_part(p, ' ', 2) IN ('queued', 'running') THEN '${QUEUE_CHANNEL}' END)) AS v (o, c)
  WHERE c IS NOT NULL ORDER BY n, o`;

/**
 * Records that turn $1 (claim $2 owner, $3 attempt) starts at log length $4 — only while the
 * claim stands and its lease is live; no row: the claim was lost, do not start. `watched`: a
 * client follows the turn (`followed_until`) or watches its session's log (the store's
 * `watched_until`) — the turn is published from its start (decision 0016; a follower that comes
 * later announces itself on the follow channel).
 */
export const MARK_STARTED = `UPDATE keelson_turns t SET start_seq = $4, started_at = now(), updated_at = now()
  FROM keelson_sessions s
  WHERE t.id = $1 AND t.status = 'running' AND t.claimed_by = $2 AND t.attempts = $3
    AND s.id = t.session_id AND s.lease_owner = $2 AND s.lease_epoch = t.claim_epoch AND s.lease_expires_at > now()
  RETURNING t.id, coalesce(t.followed_until > now(), false) OR coalesce(s.watched_until > now(), false) AS watched`;

/**
 * Records how turn $1 (claim $2 owner, $3 attempt) ended: status $4, outcome $5 (jsonb text),
 * error $6, error code $7; the caller notifies `<id> <status>` once it has committed (NOTIFY_TURNS).
 * No row: the claim was lost (the turn was recovered by another worker).
 */
export const MARK_FINISHED = `UPDATE keelson_turns SET status = $4, outcome = $5::jsonb, error = $6, error_code = $7,
    finished_at = now(), updated_at = now()
  WHERE id = $1 AND status = 'running' AND claimed_by = $2 AND attempts = $3
  RETURNING id::text AS id`;

/**
 * MARK_FINISHED ($1–$7 as there) and, in the same statement, the release of owner $2's lease on
 * the turn's session $8 at epoch $9 — one commit where a finished turn took two (#20 F21). The
 * caller's store has let the session go already, keeping the lease (`keepLeaseOnRelease`). The
 * lease is cleared only when the turn was recorded and only while owner and epoch still match;
 * otherwise the caller clears it (CLEAR_SESSION). Lock order as everywhere: the session row
 * (`lk`, locked before the turn row can be: the turn's update joins it) before its turn row.
 * Returns the turn's id and `released`: whether the lease was cleared here. The caller notifies
 * `<id> <status>` once this has committed (NOTIFY_TURNS).
 */
export const FINISH_AND_RELEASE = `WITH lk AS MATERIALIZED (
    SELECT id FROM keelson_sessions WHERE id = $8 FOR NO KEY UPDATE
  ), t AS (
    UPDATE keelson_turns SET status = $4, outcome = $5::jsonb, error = $6, error_code = $7,
      finished_at = now(), updated_at = now()
    FROM lk
    WHERE keelson_turns.id = $1 AND keelson_turns.session_id = lk.id AND keelson_turns.status = 'running'
      AND keelson_turns.claimed_by = $2 AND keelson_turns.attempts = $3
    RETURNING keelson_turns.id::text AS id
  ), s AS (
    UPDATE keelson_sessions SET lease_owner = NULL, lease_expires_at = NULL
    FROM t
    WHERE keelson_sessions.id = $8 AND keelson_sessions.lease_owner = $2 AND keelson_sessions.lease_epoch = $9
    RETURNING keelson_sessions.id
  )
  SELECT t.id, EXISTS (SELECT 1 FROM s) AS released FROM t`;

/** The sessions among $2 (text[]) whose lease owner $1 still holds live at the epochs $3 (bigint[]). */
export const HELD_LEASES = `SELECT s.id FROM keelson_sessions s
  JOIN unnest($2::text[], $3::bigint[]) AS h (id, epoch) ON h.id = s.id
  WHERE s.lease_owner = $1 AND s.lease_epoch = h.epoch AND s.lease_expires_at > now()`;

/** The columns of a turn's record (TurnRow). */
const TURN_COLUMNS = `id::text AS id, session_id, prompt, profile, status, attempts, started_attempts,
    start_seq::text AS start_seq,
    claimed_by, outcome, error, decision, error_code,
    floor(extract(epoch FROM enqueued_at) * 1000)::float8 AS enqueued_at,
    floor(extract(epoch FROM finished_at) * 1000)::float8 AS finished_at`;

/** One turn ($1). */
export const TURN = `SELECT ${TURN_COLUMNS} FROM keelson_turns WHERE id = $1`;

/** The open turns (queued or running) of session $1, oldest first (the index keelson_turns_open). */
export const OPEN_TURNS = `SELECT ${TURN_COLUMNS} FROM keelson_turns
  WHERE session_id = $1 AND status IN ('queued', 'running') ORDER BY id`;

/**
 * What a follower looks at (decision 0016): the session ($1, or the session of turn $2) — its log
 * length, whether its lease is live, when it expires and how long it is — and its open turns
 * plus turn $2, oldest first. With $3 (ms), turn $2, when queued, is marked followed for that
 * long (MARK_FOLLOWED; a turn follower's first look). Liveness (decision 0040): `owner_live` —
 * whether the live lease's owner holds its liveness lock (null: no live lease, or an owner that is
 * no registered worker) — and, unless it does and while a turn runs, `live_workers`: how many
 * workers hold theirs (each a read of pg_locks, so only when a follower judges a running turn).
 */
export const FOLLOW_STATE = `WITH m AS (
    UPDATE keelson_turns
    SET followed_until = GREATEST(COALESCE(followed_until, now()), now() + $3::float8 * interval '1 millisecond')
    WHERE $3::float8 IS NOT NULL AND id = $2::bigint AND status = 'queued'
  ), s AS (
    SELECT id, next_seq, lease_owner, lease_expires_at, lease_heartbeat_at FROM keelson_sessions
    WHERE id = coalesce($1::text, (SELECT session_id FROM keelson_turns WHERE id = $2::bigint))
  ), t AS (
    SELECT t.id, t.status, t.attempts, t.start_seq, t.outcome, t.error FROM keelson_turns t, s
    WHERE t.session_id = s.id AND t.status IN ('queued', 'running')
    UNION
    SELECT t.id, t.status, t.attempts, t.start_seq, t.outcome, t.error FROM keelson_turns t WHERE t.id = $2::bigint
  ), o AS (
    SELECT CASE WHEN s.lease_owner IS NOT NULL AND s.lease_expires_at > now() THEN
      (SELECT ${LOCK_HELD} FROM keelson_workers w WHERE w.owner = s.lease_owner) END AS owner_live FROM s
  )
  SELECT s.id AS session_id, s.next_seq::text AS next_seq,
    coalesce(s.lease_owner IS NOT NULL AND s.lease_expires_at > now(), false) AS leased,
    floor(extract(epoch FROM (s.lease_expires_at - now())) * 1000)::float8 AS expires_in_ms,
    floor(extract(epoch FROM (s.lease_expires_at - s.lease_heartbeat_at)) * 1000)::float8 AS lease_ms,
    o.owner_live,
    CASE WHEN o.owner_live IS NOT TRUE AND EXISTS (SELECT 1 FROM t WHERE t.status = 'running') THEN (${LIVE_WORKERS}) END
      AS live_workers,
    coalesce((SELECT json_agg(json_build_object('id', t.id::text, 'status', t.status, 'attempts', t.attempts,
        'startSeq', t.start_seq, 'outcome', t.outcome, 'error', t.error) ORDER BY t.id) FROM t), '[]'::json) AS turns
  FROM s, o`;

/**
 * Marks the queued turns among $1 (bigint[]) followed for $2 ms: the worker that starts one
 * publishes it from its start (MARK_STARTED). Set by a follower's first look, renewed while the
 * turn waits.
 */
export const MARK_FOLLOWED = `UPDATE keelson_turns
  SET followed_until = GREATEST(COALESCE(followed_until, now()), now() + $2 * interval '1 millisecond')
  WHERE id = ANY ($1::bigint[]) AND status = 'queued'`;

/** The session of turn $1. */
export const TURN_SESSION = "SELECT session_id FROM keelson_turns WHERE id = $1";

/** Announces to the workers that session $1 is followed (FOLLOW_CHANNEL in follow-wire.ts). */
export const ANNOUNCE_FOLLOW = "SELECT pg_notify('keelson_follow', $1)";
