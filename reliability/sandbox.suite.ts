// sandbox (#26, P32): real escapes through the `bash` tool (reliability/sandbox-cases.ts) — writes
// outside the workspace (absolute, `..`, symlink, hard link, /proc/…/root, bind mounts and user
// namespaces), planted secrets, the host's /tmp, a 127.0.0.1 server, a Unix socket, setuid, a
// fork bomb, a daemon, host devices, read-only mode. One trial = one case, run three ways:
//   on        the default sandbox: every escape blocked — or, on a machine where the sandbox
//             cannot start (no bwrap, no user namespaces), the command refused and nothing run;
//   forced    the sandbox pointed at a missing bwrap: refused, nothing run (so CI covers the
//             fail-closed path even where bubblewrap is installed);
//   off       `sandbox: "off"`: the escape must work (the probe can see one), where safe — the
//             fork bomb never runs unconfined.
import { type SandboxSupport, sandboxSupport } from "../src/sandbox/index.js";
import { SANDBOX_CASES, type SandboxCase } from "./sandbox-cases.js";
import { MISSING_BWRAP, type Ran, sandboxRig, type SandboxRig } from "./sandbox-rig.js";
import { type ReliabilitySuite, resultOf, type SuiteResult, type TrialOutcome } from "./suite.js";
import { runTrials } from "./trial-pool.js";
import { check } from "./violation.js";

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Nothing ran: the refusal, and only the refusal, is the result. */
export function refused(ran: Ran, what: string): void {
  check(ran.isError, `${what}: not an error result`);
  check(ran.meta.code === "sandbox-unavailable", `${what}: meta.code is ${JSON.stringify(ran.meta.code)}`);
  check(
    /^Command not run: the sandbox cannot start here: .*--sandbox off/s.test(ran.text),
    `${what}: not the refusal: ${ran.text.slice(0, 300)}`,
  );
}

async function withRig<T>(c: SandboxCase, fn: (rig: SandboxRig) => Promise<T>): Promise<T> {
  const rig = await sandboxRig();
  try {
    await c.setup?.(rig);
    return await fn(rig);
  } finally {
    await rig.dispose();
  }
}

async function trial(c: SandboxCase, support: SandboxSupport): Promise<string[]> {
  const skipped = c.skip?.();
  if (skipped !== undefined) return [`skipped: ${c.name} (${skipped})`];
  const kinds: string[] = [];
  await withRig(c, async (rig) => {
    const ran = await rig.run(c.command(rig), c.options ?? {}, c.timeoutMs);
    if (support.ok) {
      await c.confined(rig, ran);
      kinds.push("on: blocked");
    } else {
      refused(ran, "on, sandbox unavailable");
      kinds.push("on: refused (no sandbox here)");
    }
  });
  await withRig(c, async (rig) => {
    refused(await rig.run(c.command(rig), { ...c.options, bwrap: MISSING_BWRAP }, c.timeoutMs), "forced unavailable");
    kinds.push("forced unavailable: refused");
  });
  if (c.unconfined === undefined) kinds.push("off: not run");
  else
    await withRig(c, async (rig) => {
      const why = c.unconfinedSkip?.(rig);
      if (why !== undefined) {
        kinds.push("off: not meaningful here");
        return;
      }
      await c.unconfined!(rig, await rig.run(c.command(rig), "off", c.timeoutMs));
      kinds.push("off: escapes");
    });
  return kinds;
}

const suite: ReliabilitySuite = {
  name: "sandbox",
  checks:
    "bash escapes (writes outside, hidden secrets, 127.0.0.1, Unix sockets, setuid, fork bomb, daemon, /dev) blocked with the sandbox on, refused where it cannot start, seen with it off",
  fullTrials: SANDBOX_CASES.length * 3,
  fastTrials: SANDBOX_CASES.length,
  async run({ trials, log }): Promise<SuiteResult> {
    const started = performance.now();
    const support = await sandboxSupport();
    log?.(support.ok ? `sandbox: ${support.version} at ${support.bwrap}` : `sandbox unavailable: ${support.reason}`);
    const outcomes = await runTrials(trials, 1, async (i): Promise<TrialOutcome> => {
      const c = SANDBOX_CASES[i % SANDBOX_CASES.length]!;
      try {
        return { kinds: await trial(c, support) };
      } catch (error) {
        return { failure: `trial ${i} (${c.name}): ${describe(error)}` };
      }
    });
    return resultOf(suite.name, outcomes, started);
  },
};

export default suite;
