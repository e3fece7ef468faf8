// The package root (`keelson`) carries the turn-event vocabulary a consumer of `agent.stream()` /
// `agent.follow()` needs to name and narrow what it iterates — not only `TurnEvent`, but its
// parts (`CommittedTurnEvent`, `LiveTurnEvent`, `ToolProgressEvent`, `SubagentTurnEvent`) and the
// guard `isCommittedTurnEvent` — the same as `keelson/loop` (found from outside: only the subpath
// had `CommittedTurnEvent`). The type imports are checked by the typechecker.
import { expect, expectTypeOf, test } from "vitest";
import * as root from "../../src/index.js";
import type {
  CommittedTurnEvent,
  LiveTurnEvent,
  SubagentTurnEvent,
  ToolProgressEvent,
  TurnEvent,
} from "../../src/index.js";
import * as loop from "../../src/loop/index.js";

test("the root exports the turn-event types and the committed-event guard of keelson/loop", () => {
  expectTypeOf<CommittedTurnEvent>().toEqualTypeOf<loop.CommittedTurnEvent>();
  expectTypeOf<LiveTurnEvent>().toEqualTypeOf<loop.LiveTurnEvent>();
  expectTypeOf<ToolProgressEvent>().toEqualTypeOf<loop.ToolProgressEvent>();
  expectTypeOf<TurnEvent>().toEqualTypeOf<CommittedTurnEvent | LiveTurnEvent | SubagentTurnEvent>();
  expect(root.isCommittedTurnEvent).toBe(loop.isCommittedTurnEvent);
  const event: TurnEvent = { type: "turn-start", seq: 0, turn: 1, trigger: "send" };
  expect(root.isCommittedTurnEvent(event) && event.seq).toBe(0);
});
