// The tools suite's protocol between the parent (tools.suite.ts, which builds the hostile
// workspace and checks everything) and the child that runs the built-in tools
// (tools-child.ts): one JSON request per stdin line, one `answer <json>` per stdout line, and
// the bounds every call is held to. The child runs in its own process so that a tool that
// freezes its event loop (a catastrophic regex on the main thread) or wedges libuv's thread pool
// (a blocking FIFO open) is caught by the parent's watchdog and killed, not left hanging the run.

/** A call is stopped after this long (outer abort signal and pipeline timeout); needing it is a failure. */
export const CALL_TIMEOUT_MS = 20_000; // generous: a loaded box (load 15+) starts a grep worker slowly
/** grep's own deadline in the child (GrepToolOptions.deadlineMs): a catastrophic pattern ends here. */
export const GREP_DEADLINE_MS = 8_000; // a plain grep took > 3 s at load 25; a catastrophic one still ends here
/**
 * grep's deadline for the cases whose regex backtracks catastrophically (ToolRequest.grepDeadlineMs):
 * they can only end at a deadline, and what they prove (the deadline stops the worker, the event
 * loop keeps ticking, memory stays bounded) holds at any length — at 8 s each they spun a core for
 * 24 s of every run.
 */
export const CATASTROPHIC_GREP_DEADLINE_MS = 1_000;
/** The child's event-loop heartbeat while a call runs. */
export const HEARTBEAT_MS = 10;
/** A heartbeat gap this long means the call blocked the event loop (generous: the box is shared). */
export const MAX_LOOP_GAP_MS = 2_000;
/** Resident-memory growth allowed during one call (a 2 GB file read whole would blow far past it). */
export const MAX_RSS_GROWTH_MB = 256;
/** The parent kills a child that has not answered a call for this long (its event loop is stuck). */
export const WATCHDOG_MS = CALL_TIMEOUT_MS + 10_000;
/** The tools' output cap in the child; an answer longer than this plus a marker is unbounded. */
export const OUTPUT_CAP = 30_000;

export interface ToolRequest {
  readonly id: number;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** grep's deadline for this call instead of GREP_DEADLINE_MS. */
  readonly grepDeadlineMs?: number;
}

/** What the child measured and got for one call. */
export interface ToolAnswer {
  readonly id: number;
  readonly elapsedMs: number;
  /** The longest the event loop went without a heartbeat during the call. */
  readonly maxGapMs: number;
  /** Peak resident memory during the call minus resident memory before it, in MB. */
  readonly rssGrowthMb: number;
  readonly isError: boolean;
  /** The pipeline's error code (`timeout`, `aborted`, `threw`…), when it made the result. */
  readonly error?: string;
  /** The tool's own failure code (`meta.code`), when it reported one. */
  readonly code?: string;
  readonly text: string;
}
