// A watchdog for the test run's PostgreSQL cluster: a detached process that stops the cluster
// (SIGINT to the postmaster: PostgreSQL's fast shutdown) and removes its dir if the process that
// started it disappears without its teardown — a runner killed by a timeout or a signal would
// otherwise leave a server running on the machine. The normal teardown stops the watchdog by pid
// first, then the cluster as usual.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const WATCHDOG = `
const [owner, postmaster, dir] = process.argv.slice(1).map((a, i) => (i < 2 ? Number(a) : a));
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === "EPERM"; } };
const poll = setInterval(() => {
  if (alive(owner)) return;
  clearInterval(poll);
  try { process.kill(postmaster, "SIGINT"); } catch {}
  const gone = setInterval(() => {
    if (alive(postmaster)) return;
    clearInterval(gone);
    require("node:fs").rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }, 200);
  setTimeout(() => process.exit(1), 60_000);
}, 1000);
`;

/** Starts the watchdog of the cluster in `dir` for this process; returns the function that stops it. */
export function guardCluster(dir: string): () => void {
  const postmaster = Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const child = spawn(process.execPath, ["-e", WATCHDOG, String(process.pid), String(postmaster), dir], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return () => {
    if (child.pid !== undefined && child.exitCode === null) child.kill("SIGTERM");
  };
}
