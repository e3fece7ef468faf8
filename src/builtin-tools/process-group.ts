// Stopping a command's process group: SIGTERM first, so the command's traps and cleanup run (a
// SIGKILL-only stop once left a half-written lock behind), then SIGKILL for whatever is still
// alive after a grace period. It only ever signals the one group it is given — `bash` spawns the
// shell detached, so the shell's pid is the id of a group holding that command and its children.
import { readdir, readFile } from "node:fs/promises";

export const DEFAULT_KILL_GRACE_MS = 2000;
/** How often the group is looked at while it winds down. */
const POLL_MS = 50;
/** After SIGKILL, how long to wait for the group to be seen gone before reporting anyway. */
const KILL_SETTLE_MS = 1000;

/** `terminated`: the group was gone within the grace. `killed`: it needed SIGKILL. */
export type GroupStop = "terminated" | "killed";

/** SIGTERM to group `pgid`, then SIGKILL to it if any member is still running after `graceMs`. */
export async function stopProcessGroup(pgid: number, graceMs: number): Promise<GroupStop> {
  if (!signalGroup(pgid, "SIGTERM")) return "terminated";
  const deadline = Date.now() + graceMs;
  for (;;) {
    if (!(await groupRunning(pgid))) return "terminated";
    const left = deadline - Date.now();
    if (left <= 0) break;
    await pause(Math.min(POLL_MS, left));
  }
  signalGroup(pgid, "SIGKILL");
  const settle = Date.now() + KILL_SETTLE_MS;
  while (Date.now() < settle && (await groupRunning(pgid))) await pause(POLL_MS);
  return "killed";
}

/** Sends `signal` to the group; false when there is no such group. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether any member of the group is still running. `kill(-pgid, 0)` also succeeds for a group of
 * zombies — orphans whose reaper (a container's pid 1) never reaps them — so on Linux the members'
 * states are read from /proc, and a group of zombies counts as stopped.
 */
async function groupRunning(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  let pids: string[];
  try {
    pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  } catch {
    return true; // no /proc: trust kill(0)
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = await readFile(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so parse after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
  }
  return false;
}

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
