import { type SessionEvent } from "../session/index.js";
import { type ReconstructedRequest } from "./types.js";
/**
 * Every loop request recorded in `events`, in order. A step's history is fixed at its
 * `step/start` (the boundary); its header is the fold of every event up to dispatch, i.e. up to
 * the step's first model output (`assistant/message`, `llm/retry`, a tool event) or its
 * `step/end` — the loop records the header after the `agent/request` waterfall, whose own
 * appends already come after the boundary and so belong to the next request.
 *
 * A step whose `step/end` says `dispatched: false` (the loop ended it before handing the request
 * to `llm/stream`), or that ended with no header ever logged (crashed before dispatch), sent
 * nothing and is not listed. Throws `HeaderError` for a corrupt header
 * record and `ReconstructError` for model output with no header or a replace the surface
 * cannot take.
 */
export declare function reconstructRequests(events: readonly SessionEvent[]): ReconstructedRequest[];
