// Public API of the fleet layer (`keelson/fleet`): a turn queue in PostgreSQL served by worker
// processes on any number of machines (README.md; docs/decisions/0012). Depends on errors,
// json, session, llm, store (and its PostgreSQL store) and loop. `pg` is loaded on first use.
export type {
  AwaitOptions,
  DecisionOptions,
  EnqueueOptions,
  NewSessionOptions,
  ResponseOptions,
} from "./client-options.js";
export { awaitTurn, enqueueTurn, FleetClient, openFleetClient } from "./fleet-client.js";
export { checkFleetSchema, FLEET_SCHEMA_VERSION, migrateFleet } from "./fleet-schema.js";
export { rotateFollowKey } from "./follow-seal.js";
export { FOLLOW_CHANNEL, liveChannel } from "./follow-wire.js";
export type { FollowOptions, FollowSessionOptions } from "./turn-follower.js";
export { statusOf } from "./run-turn.js";
export { QUEUE_CHANNEL, TURNS_CHANNEL } from "./turn-queries.js";
export type { AgentProfile, ProfileAgentOptions, ProfileContext } from "../loop/index.js";
export {
  FINISHED_STATUSES,
  type FleetClientOptions,
  FleetError,
  type FleetErrorCode,
  type FleetStore,
  type QueuedApproval,
  type QueuedDecision,
  type QueuedResponse,
  type StopOptions,
  type StoredOutcome,
  type TurnRecord,
  type TurnStatus,
  type Worker,
  type WorkerOptions,
  type WorkerTurnEvent,
} from "./types.js";
export { startWorker } from "./worker.js";
export { DEFAULT_DEAD_AFTER_MS } from "./worker-liveness.js";
