// replaySession / replayLog: re-run a stored session with the current code and compare every
// rebuilt request with the logged one (the driver, then the comparison), then the child sessions
// its tool results name. Read-only: the stored session is loaded without a lock and never written;
// the replay runs on a session of its own in memory.
import { reconstructRequests } from "../reconstruct/index.js";
import type { Session, SessionMeta } from "../session/index.js";
import type { SessionStore } from "../store/index.js";
import { replayChild } from "./children.js";
import { compareRequests } from "./compare.js";
import { driveReplay, type LineageSegment } from "./drive.js";
import { LogExplainer } from "./explain.js";
import { recordedLog } from "./recorded-log.js";
import { childOf } from "./replay-plugins.js";
import type { ReplayedChild, ReplayOptions, ReplayReport, RequestDifference } from "./types.js";

/**
 * Replays session `id` of `store` with `options` (the app's agent options, plus the replay's own):
 * every logged request rebuilt by the current code and compared with the log. Loads the session
 * read-only (no lock, no repair); writes nothing.
 */
export async function replaySession(store: SessionStore, id: string, options: ReplayOptions): Promise<ReplayReport> {
  const { session } = await store.load(id, { readOnly: true });
  return replayLog(session, options, store);
}

/**
 * Replays a loaded session (e.g. a log file read by the CLI). `store` is where a fork's ancestors
 * (for their ids) and the child sessions are looked up; without it a fork's seed replays under its
 * parent's id and children are not replayed.
 */
export async function replayLog(session: Session, options: ReplayOptions, store?: SessionStore): Promise<ReplayReport> {
  const events = session.events;
  const logged = reconstructRequests(events);
  const log = recordedLog(events);
  const drive = await driveReplay({
    log,
    logged,
    createdAt: session.header.createdAt,
    lineage: await lineageOf(session.header, store),
    options,
  });
  const replayed = reconstructRequests(drive.session.events);
  const { differences, identical } = compareRequests({
    logged,
    replayed,
    explainer: () => new LogExplainer(session),
    seedLength: session.header.seedLength ?? 0,
    contributorOf: (message) => drive.contributors.nameOf(message),
    ...(options.countTokens === undefined ? {} : { countTokens: options.countTokens }),
    ...(options.models === undefined ? {} : { models: options.models }),
  });
  const children: ReplayedChild[] = [];
  for (const [callId, result] of log.results) {
    const child = childOf(result);
    if (child !== undefined)
      children.push(
        await replayChild({ callId, session: child }, drive.children.get(callId), options, store, replaySession),
      );
  }
  return {
    sessionId: session.id,
    identical: differences.length === 0 && children.every((c) => c.report === undefined || c.report.identical),
    requests: { logged: logged.length, replayed: replayed.length, identical },
    differences,
    cache: cacheTotals(differences),
    turns: drive.notes,
    children,
  };
}

/** Every recurring loss, plus the largest one-time loss once (see `ReplayReport.cache`). */
function cacheTotals(differences: readonly RequestDifference[]): ReplayReport["cache"] {
  const price = (d: RequestDifference): number =>
    d.cache.cost === undefined || d.cache.lostTokens === 0 ? 0 : d.cache.cost / d.cache.lostTokens;
  let recurring = 0;
  let recurringCost = 0;
  let once: RequestDifference | undefined;
  const onceOf = (d: RequestDifference): number => d.cache.lostTokens - d.cache.recurringLostTokens;
  for (const d of differences) {
    recurring += d.cache.recurringLostTokens;
    recurringCost += d.cache.recurringLostTokens * price(d);
    if (onceOf(d) > 0 && (once === undefined || onceOf(d) > onceOf(once))) once = d;
  }
  const onceTokens = once === undefined ? 0 : onceOf(once);
  return {
    lostTokens: recurring + onceTokens,
    recurringLostTokens: recurring,
    onceLostTokens: onceTokens,
    cost: recurringCost + (once === undefined ? 0 : onceTokens * price(once)),
  };
}

/**
 * The sessions a fork's events ran under, oldest ancestor first: each ancestor's id and where the
 * next one's own events start (its `seedLength`). An ancestor the store cannot give stands for the
 * whole seed under the parent's id.
 */
async function lineageOf(meta: SessionMeta, store: SessionStore | undefined): Promise<LineageSegment[]> {
  const own: LineageSegment = { id: meta.id, ...(meta.cwd === undefined ? {} : { cwd: meta.cwd }) };
  if (meta.parentSession === undefined || meta.seedLength === undefined) return [own];
  let parent: LineageSegment[] = [{ id: meta.parentSession, ...(meta.cwd === undefined ? {} : { cwd: meta.cwd }) }];
  if (store !== undefined) {
    try {
      parent = await lineageOf((await store.load(meta.parentSession, { readOnly: true })).session.header, store);
    } catch {
      // the parent is gone (its seed was kept): its id is all the replay needs
    }
  }
  return [...parent.slice(0, -1), { ...parent.at(-1)!, until: meta.seedLength }, own];
}
