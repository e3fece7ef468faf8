// vitest globalSetup: at the end of the run, removes the sandbox pids cgroups that processes which
// have ended left behind (src/sandbox/pids-cgroup.ts: a worker ended by a signal never runs its
// exit handler). A backstop: the setup file already removes a worker's spares after each file,
// and the teardown can run while a worker is still exiting. Nothing happens where no pids cgroup
// can be made.
import { sweepPidsCgroups } from "../../src/sandbox/index.js";

export default function setup(): () => Promise<void> {
  return sweepPidsCgroups;
}
