// `keelson verify`'s problems for a loaded session, each with where it is (`file:line`, line =
// seq − firstSeq + 2: the header is line 1): verifyLog's structural checks, then a full
// reconstruction of every request when the structure is sound — one request materialized at a
// time (request-walk.ts), so memory stays linear in the log.
import { ReconstructError, verifyLog } from "../reconstruct/index.js";
import { eachRequest } from "./request-walk.js";
import type { InspectedSession, VerifyPayload, VerifyProblem } from "./types.js";

export function verifyPayload(loaded: InspectedSession): VerifyPayload {
  const { session, where, firstSeq } = loaded;
  const lineOf = (seq: number | undefined): number | undefined =>
    seq === undefined || seq < firstSeq ? undefined : seq - firstSeq + 2;
  const report = verifyLog(session.events);
  const problems: VerifyProblem[] = report.issues.map((issue) => {
    const line = lineOf(issue.seq);
    return { where, ...(line === undefined ? {} : { line }), ...issue };
  });
  let requests = report.requests;
  if (report.ok) {
    try {
      requests = 0;
      for (const r of eachRequest(session.events)) {
        void r.request; // materialize: the fold must succeed for every request
        requests++;
      }
    } catch (error) {
      if (!(error instanceof ReconstructError)) throw error;
      const line = lineOf(error.seq);
      problems.push({
        where,
        ...(line === undefined ? {} : { line }),
        seq: error.seq,
        code: error.code,
        message: error.message,
      });
    }
  }
  return { clean: problems.length === 0, events: report.events, turns: report.turns, requests, problems };
}
