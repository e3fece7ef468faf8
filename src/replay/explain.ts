// The logged event behind a difference: for the system prompt, a tool, the session prefix or a
// config key, the header record (snapshot or delta) that set that part of the logged request; for
// a history message, the event the message derives from; for a missing request, its `step/start`.
import { AFTER_DISPATCH, type ReconstructedRequest } from "../reconstruct/index.js";
import { type AnySessionEvent, Session } from "../session/index.js";
import type { DiffSegment, Explanation } from "./types.js";

type Arm = "system" | "tools" | "prefix" | "config";

export class LogExplainer {
  readonly #session: Session;
  /** The header record in force per arm, for each request (by its `step/start` seq). */
  readonly #headers = new Map<number, Readonly<Partial<Record<Arm, Explanation>>>>();

  constructor(session: Session) {
    this.#session = session;
    let current: Partial<Record<Arm, Explanation>> = {};
    let pending: number | undefined;
    for (const event of session.events as readonly AnySessionEvent[]) {
      if (pending !== undefined && AFTER_DISPATCH.has(event.type)) {
        this.#headers.set(pending, current);
        pending = undefined;
      }
      if (event.type === "request/header") {
        const why = { seq: event.seq, type: event.type, text: `request/header (${event.data.reason})` };
        current = { system: why, tools: why, prefix: why, config: why };
      } else if (event.type === "request/header-delta") {
        const arms = Object.keys(event.data).sort();
        const why = { seq: event.seq, type: event.type, text: `request/header-delta (${arms.join(", ")})` };
        current = { ...current };
        for (const arm of arms) current[arm === "messagePrefix" ? "prefix" : (arm as Arm)] = why;
      } else if (event.type === "step/start") pending = event.seq;
    }
    if (pending !== undefined) this.#headers.set(pending, current);
  }

  /** The logged event that explains `segment` of the logged request `r`. */
  explain(r: ReconstructedRequest, segment: DiffSegment): Explanation | undefined {
    switch (segment.kind) {
      case "config":
        return this.#headers.get(r.stepStartSeq)?.config;
      case "tool":
        return this.#headers.get(r.stepStartSeq)?.tools;
      case "system":
        return this.#headers.get(r.stepStartSeq)?.system;
      case "prefix":
        return this.#headers.get(r.stepStartSeq)?.prefix;
      case "history": {
        const seqs = Session.fromSession(this.#session, this.#session.header, r.stepStartSeq).surfaceSeqs();
        const seq = seqs[segment.index];
        return seq === undefined
          ? {
              seq: r.stepStartSeq,
              type: "step/start",
              text: `step/start: the logged history ends at message ${seqs.length}`,
            }
          : describeEvent(this.#session.eventAt(seq) as AnySessionEvent);
      }
      case "missing":
      case "extra":
        return describeEvent(this.#session.eventAt(r.stepStartSeq) as AnySessionEvent);
    }
  }
}

export function describeEvent(event: AnySessionEvent): Explanation {
  const base = { seq: event.seq, type: event.type };
  switch (event.type) {
    case "user/message":
    case "context/message":
    case "steering/message":
      return { ...base, text: `${event.type} (source ${event.data.source})` };
    case "assistant/message":
    case "step/start":
      return { ...base, text: `${event.type} (turn ${event.data.turn}, step ${event.data.step})` };
    case "tool/result":
      return {
        ...base,
        text: `tool/result ${event.data.callId}${event.data.isError ? " (error)" : ""}${event.surfaceOp === "append" ? "" : " (pruned by compaction)"}`,
      };
    default:
      return { ...base, text: event.type };
  }
}
