// Public API of the testing layer (`keelson/testing`): assertions for apps' own test suites.
export { expectReplayIdentical } from "./expect-replay.js";
export { ReplayError, type ReplayOptions, type ReplayReport } from "../replay/index.js";
