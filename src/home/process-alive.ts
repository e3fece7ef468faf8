// Whether a process of this machine still lives, by pid: how Keelson tells what a dead process left
// behind (a session lock file, a sandbox's cgroup folder) from what a live one still holds.

/** Whether process `pid` exists (one owned by another user counts: signal 0 then fails with EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
