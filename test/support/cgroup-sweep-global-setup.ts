// vitest globalSetup: at the end of the run, once every worker has exited, removes the sandbox
// pids cgroups their processes left (src/sandbox/pids-cgroup.ts: a worker ended by a signal never
// runs its exit handler). Only cgroups of processes that have ended are touched; nothing happens
// where no pids cgroup can be made.
import { sweepPidsCgroups } from "../../src/sandbox/index.js";

export default function setup(): () => Promise<void> {
  return sweepPidsCgroups;
}
