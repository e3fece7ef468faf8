// The escapes the sandbox suite tries, each a real command through the `bash` tool: what it
// attempts, how to tell it was blocked (sandbox on), and what happens with the sandbox off — run
// where that is safe, so every probe is shown able to see an escape (a probe that cannot fail
// proves nothing). The fork bomb is never run unconfined.
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { chmod, chown, copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { SandboxOptions } from "../src/sandbox/index.js";
import type { Ran, SandboxRig } from "./sandbox-rig.js";
import { check } from "./violation.js";

export interface SandboxCase {
  readonly name: string;
  /** The sandbox options the confined run uses (default: the default policy, workspace-write). */
  readonly options?: SandboxOptions;
  /** Why the case cannot run on this machine (undefined: it can). */
  readonly skip?: () => string | undefined;
  /** Prepares the rig (files, links) before any run. */
  readonly setup?: (rig: SandboxRig) => Promise<void>;
  readonly command: (rig: SandboxRig) => string;
  readonly timeoutMs?: number;
  /** Throws a Violation unless the confined run was blocked. */
  readonly confined: (rig: SandboxRig, ran: Ran) => Promise<void> | void;
  /**
   * Throws unless the escape works with the sandbox off — or undefined when the case is never
   * run unconfined (documented instead). Returns what happened, in words.
   */
  readonly unconfined?: (rig: SandboxRig, ran: Ran) => Promise<string> | string;
  /** Why the unconfined run shows nothing here (e.g. it needs root); undefined: run it. */
  readonly unconfinedSkip?: (rig: SandboxRig) => string | undefined;
}

const isRoot = (): boolean => process.getuid?.() === 0;
const content = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, "utf8") : undefined);

const unchanged = (rig: SandboxRig, what: string): void => {
  check(content(join(rig.outside, "target.txt")) === "original\n", `${what}: the outside file changed`);
};
const absent = (path: string, what: string): void => check(!existsSync(path), `${what}: ${path} was written`);
const noSecret = (rig: SandboxRig, ran: Ran, what: string): void =>
  check(!ran.text.includes(rig.secret), `${what}: the secret was read: ${ran.text.slice(0, 300)}`);

/** Processes of the host whose command line holds `word`. */
export function processesWith(word: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(word)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Running processes of the host (zombies aside: a container's pid 1 may never reap them) in the pid namespace `ns` (`pid:[N]`). */
export function processesIn(ns: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (readlinkSync(`/proc/${name}/ns/pid`) === ns && stat[stat.lastIndexOf(")") + 2] !== "Z")
        found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Host devices the sandbox's own /dev does not have (block devices, the kernel log). */
function hostDevices(): string[] {
  const devices: string[] = [];
  for (const name of existsSync("/dev") ? readdirSync("/dev") : []) {
    const path = join("/dev", name);
    try {
      if (statSync(path).isBlockDevice() || name === "kmsg" || name === "mem") devices.push(path);
    } catch {
      // unreadable entry
    }
  }
  return devices.slice(0, 8);
}

export const SANDBOX_CASES: readonly SandboxCase[] = [
  {
    name: "write outside (absolute path)",
    command: (rig) => `echo pwned > ${rig.outside}/absolute.txt`,
    confined: (rig) => absent(join(rig.outside, "absolute.txt"), "absolute write"),
    unconfined: (rig) => {
      check(content(join(rig.outside, "absolute.txt")) === "pwned\n", "unconfined absolute write did not land");
      return "the file is written";
    },
  },
  {
    name: "write outside (..)",
    command: (rig) => `echo pwned > ${relative(rig.ws, rig.outside)}/dotdot.txt`,
    confined: (rig) => absent(join(rig.outside, "dotdot.txt"), "../ write"),
    unconfined: (rig) => {
      check(content(join(rig.outside, "dotdot.txt")) === "pwned\n", "unconfined ../ write did not land");
      return "the file is written";
    },
  },
  {
    name: "write outside (symlink in the workspace)",
    command: (rig) => `ln -s ${rig.outside}/target.txt link && echo pwned > link`,
    confined: (rig) => unchanged(rig, "write through a symlink"),
    unconfined: (rig) => {
      check(content(join(rig.outside, "target.txt")) === "pwned\n", "unconfined symlink write did not land");
      return "the outside file is overwritten";
    },
  },
  {
    name: "write outside (hard link)",
    command: (rig) => `ln ${rig.outside}/target.txt hard && echo pwned > hard`,
    confined: (rig, ran) => {
      unchanged(rig, "write through a hard link");
      check(
        /Invalid cross-device link|Operation not permitted|Read-only/.test(ran.text),
        `ln did not fail: ${ran.text}`,
      );
    },
    unconfinedSkip: (rig) =>
      statSync(rig.ws).dev === statSync(rig.outside).dev
        ? undefined
        : "the workspace and the outside tree are on different filesystems here",
    unconfined: (rig) => {
      check(content(join(rig.outside, "target.txt")) === "pwned\n", "unconfined hard-link write did not land");
      return "the outside file is overwritten";
    },
  },
  {
    name: "write outside (/proc/self/root, /proc/<host pid>/root)",
    command: (rig) =>
      `echo pwned > /proc/self/root${rig.outside}/proc.txt; echo pwned > /proc/${process.pid}/root${rig.outside}/hostpid.txt`,
    confined: (rig) => {
      absent(join(rig.outside, "proc.txt"), "/proc/self/root write");
      absent(join(rig.outside, "hostpid.txt"), "/proc/<host pid>/root write");
    },
    unconfined: (rig) => {
      check(content(join(rig.outside, "proc.txt")) === "pwned\n", "unconfined /proc/self/root write did not land");
      check(content(join(rig.outside, "hostpid.txt")) === "pwned\n", "unconfined /proc/<pid>/root write did not land");
      return "both files are written";
    },
  },
  {
    name: "bind-mount tricks (mount --bind, a new user namespace, remount)",
    command: (rig) =>
      [
        `mkdir -p m`,
        `mount --bind ${rig.outside} m && echo pwned > m/bind.txt; umount m 2>/dev/null`,
        `unshare -Urm sh -c 'mount -o remount,rw / && echo pwned > ${rig.outside}/remount.txt' 2>&1`,
        `unshare -U true && echo userns-created`,
      ].join("; "),
    confined: (rig, ran) => {
      absent(join(rig.outside, "bind.txt"), "mount --bind");
      absent(join(rig.outside, "remount.txt"), "remount in a user namespace");
      check(!ran.text.includes("userns-created"), "a user namespace was created inside the sandbox");
    },
    unconfinedSkip: () => (isRoot() ? undefined : "mount --bind needs root"),
    unconfined: (rig, ran) => {
      check(content(join(rig.outside, "bind.txt")) === "pwned\n", "unconfined bind mount did not write");
      return `as root the bind mount works (undone by the command)${ran.text.includes("userns-created") ? "; user namespaces can be created" : ""}`;
    },
  },
  {
    name: "plant a git hook or git config in the workspace (code git runs later, unconfined)",
    setup: async (rig) => {
      await mkdir(join(rig.ws, ".git", "hooks"), { recursive: true });
      await writeFile(join(rig.ws, ".git", "config"), "[core]\n");
    },
    command: () =>
      `printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit; printf '[core]\\n\\thooksPath = /tmp/evil\\n' >> .git/config`,
    confined: async (rig) => {
      absent(join(rig.ws, ".git", "hooks", "pre-commit"), "git hook");
      check((await readFile(join(rig.ws, ".git", "config"), "utf8")) === "[core]\n", "the git config changed");
    },
    unconfined: async (rig) => {
      check(existsSync(join(rig.ws, ".git", "hooks", "pre-commit")), "unconfined: the hook was not written");
      check(
        (await readFile(join(rig.ws, ".git", "config"), "utf8")).includes("hooksPath"),
        "unconfined: config unchanged",
      );
      return "the hook and the config are written";
    },
  },
  {
    name: "read a planted ~/.ssh key, ~/.netrc, Keelson's sessions",
    command: (rig) => `cat ~/.ssh/id_ed25519 ~/.netrc ${rig.keelsonHome}/sessions/*.jsonl; ls -a ~/.ssh`,
    confined: (rig, ran) => noSecret(rig, ran, "hidden paths"),
    unconfined: (rig, ran) => {
      check(ran.text.split(rig.secret).length - 1 === 3, `unconfined read did not show the 3 secrets: ${ran.text}`);
      return "all three are read";
    },
  },
  {
    name: "read a file in the host's /tmp",
    command: (rig) => `cat ${rig.hostTmpSecret}`,
    confined: (rig, ran) => noSecret(rig, ran, "host /tmp"),
    unconfined: (rig, ran) => {
      check(ran.text.includes(rig.secret), "unconfined /tmp read failed");
      return "it is read";
    },
  },
  {
    name: "reach a server on 127.0.0.1",
    command: (rig) => `exec 3<>/dev/tcp/127.0.0.1/${rig.tcpPort} && echo connected`,
    confined: (rig, ran) => {
      check(rig.connections.tcp === 0, "the 127.0.0.1 server got a connection");
      check(!ran.text.includes("connected\n"), "the command connected");
    },
    unconfined: (rig) => {
      check(rig.connections.tcp === 1, "unconfined: no connection reached the server");
      return "it connects";
    },
  },
  {
    name: "reach 127.0.0.1 with network: on",
    options: { network: "on" },
    command: (rig) => `exec 3<>/dev/tcp/127.0.0.1/${rig.tcpPort} && echo connected`,
    // The option's point: the host's network is there. Still a sandbox (the file checks hold).
    confined: (rig) => check(rig.connections.tcp === 1, "network: on did not reach the host's 127.0.0.1"),
  },
  {
    name: "reach a Unix socket outside the workspace",
    command: (rig) =>
      `${JSON.stringify(process.execPath)} -e 'require("net").connect(process.argv[1]).on("connect", () => { console.log("connected"); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(1) })' ${rig.unixSocket}`,
    confined: (rig, ran) => {
      check(rig.connections.unix === 0, "the Unix socket server got a connection");
      check(ran.text.includes("EPERM"), `the socket was not refused with EPERM: ${ran.text}`);
    },
    unconfined: (rig) => {
      check(rig.connections.unix === 1, "unconfined: no connection reached the Unix socket");
      return "it connects";
    },
  },
  {
    name: "setuid binaries (a copy of id, setuid to nobody)",
    skip: () => (isRoot() ? undefined : "making a setuid file owned by another user needs root"),
    setup: async (rig) => {
      const copy = join(rig.ws, "suid-id");
      await copyFile("/usr/bin/id", copy);
      await chown(copy, 65534, 65534);
      await chmod(copy, 0o4755);
    },
    command: () => `./suid-id -u; grep -E '^(NoNewPrivs|CapEff)' /proc/self/status`,
    confined: (_rig, ran) => {
      check(!/^65534$/m.test(ran.text), `the setuid bit took effect: ${ran.text}`);
      check(/NoNewPrivs:\s+1/.test(ran.text), "no_new_privs is not set");
      check(/CapEff:\s+0+\n/.test(ran.text), "the command has capabilities");
    },
    unconfined: (_rig, ran) => {
      check(/^65534$/m.test(ran.text), `unconfined: the setuid bit did not take effect: ${ran.text}`);
      return "the copy runs as its owner (euid 65534), and root keeps every capability";
    },
  },
  {
    name: "a fork bomb",
    options: { maxProcesses: 64 },
    timeoutMs: 60_000,
    // The shell stays (sleep) while the bomb grows: its exit alone would end the sandbox. The pid
    // namespace goes to a file, not the output: under a loaded machine the output of a command
    // the watchdog kills was once read empty (a flaky run, not what this case checks).
    command: () => `readlink /proc/self/ns/pid > .bomb-ns; :(){ :|:& };:; sleep 55`,
    confined: (rig, ran) => {
      check(
        ran.meta.stopped === "process-limit",
        `the bomb was not stopped by the process limit: ${JSON.stringify(ran.meta)}`,
      );
      const ns = /pid:\[\d+\]/.exec(content(join(rig.ws, ".bomb-ns")) ?? "")?.[0];
      check(ns !== undefined, `the command did not report its pid namespace: ${ran.text.slice(0, 200)}`);
      const left = processesIn(ns);
      check(left.length === 0, `${left.length} processes of the bomb survived`);
    },
    // Never unconfined: it would take the machine down (as root RLIMIT_NPROC does not apply).
  },
  {
    name: "a command that daemonizes",
    command: (rig) =>
      // The command returns only once the daemon is in its own session and named (the marker is
      // written after setsid, by a process already carrying the name it keeps through its exec):
      // otherwise the tool's group kill could take it first and prove nothing, or the check could
      // look before the name is there (a flaky "did not survive" under load).
      `setsid bash -c 'exec -a keelson-daemon-${rig.nonce} bash -c "touch .daemon-up; exec -a keelson-daemon-${rig.nonce} sleep 300"' < /dev/null > /dev/null 2>&1 & ` +
      `for _ in $(seq 1 3000); do [ -e .daemon-up ] && break; sleep 0.01; done; echo started`,
    confined: (rig) => {
      const left = processesWith(`keelson-daemon-${rig.nonce}`);
      check(left.length === 0, `the daemon outlived the command: pids ${left.join(", ")}`);
    },
    unconfined: (rig) => {
      const left = processesWith(`keelson-daemon-${rig.nonce}`);
      for (const pid of left) process.kill(pid, "SIGKILL");
      check(left.length > 0, "unconfined: the daemon did not survive the command");
      return "the daemon outlives the command (killed by the test)";
    },
  },
  {
    name: "/dev access (disks, the kernel log)",
    skip: () => (hostDevices().length === 0 ? "this machine has no block device or /dev/kmsg to look for" : undefined),
    command: () => `for d in ${hostDevices().join(" ")}; do [ -e "$d" ] && echo "present $d"; done; ls /dev`,
    confined: (_rig, ran) => check(!ran.text.includes("present /dev/"), `host devices are visible: ${ran.text}`),
    unconfined: (_rig, ran) => {
      check(ran.text.includes("present /dev/"), "unconfined: no host device seen");
      return "the host's devices are there";
    },
  },
  {
    name: "read-only mode: the workspace cannot be written",
    options: { mode: "read-only" },
    setup: (rig) => writeFile(join(rig.ws, "kept.txt"), "kept\n"),
    command: () => `echo changed > kept.txt; echo new > new.txt`,
    confined: async (rig) => {
      check((await readFile(join(rig.ws, "kept.txt"), "utf8")) === "kept\n", "read-only: a workspace file changed");
      absent(join(rig.ws, "new.txt"), "read-only");
    },
    unconfined: async (rig) => {
      check((await readFile(join(rig.ws, "kept.txt"), "utf8")) === "changed\n", "unconfined: the write did not land");
      return "the workspace is written";
    },
  },
];
