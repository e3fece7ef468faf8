// The world one sandbox trial attacks, all in temp directories: a workspace, an "outside" tree
// the command must not change (under /var/tmp, so it is really there inside the sandbox,
// read-only — not merely covered by the private /tmp), a fake HOME with a planted ssh key, a
// .netrc and a Keelson session log, a secret file in the host's /tmp, a TCP server on 127.0.0.1
// and a Unix socket server outside the workspace that record who connected. `run` executes one
// command through the real `bash` tool (in process), sandboxed as asked.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bashTool } from "../src/builtin-tools/index.js";
import { Workspace } from "../src/builtin-tools/index.js";
import type { SandboxMode, SandboxOptions } from "../src/sandbox/index.js";

export interface Ran {
  readonly text: string;
  readonly isError: boolean;
  readonly meta: Readonly<Record<string, unknown>>;
}

export interface SandboxRig {
  readonly ws: string;
  readonly outside: string;
  readonly home: string;
  readonly keelsonHome: string;
  /** A file in the host's /tmp only the host can read. */
  readonly hostTmpSecret: string;
  /** Secret contents planted in the key, .netrc, the session log and the /tmp file. */
  readonly secret: string;
  /** A word unique to this trial (names, markers). */
  readonly nonce: string;
  readonly tcpPort: number;
  readonly unixSocket: string;
  /** Connections each server accepted so far. */
  readonly connections: { tcp: number; unix: number };
  run(command: string, sandbox: SandboxMode | SandboxOptions, timeoutMs?: number): Promise<Ran>;
  dispose(): Promise<void>;
}

/** The bubblewrap path that forces "sandbox unavailable" (nothing is there). */
export const MISSING_BWRAP = "/nonexistent/keelson-test/bwrap";

export async function sandboxRig(): Promise<SandboxRig> {
  const nonce = randomBytes(6).toString("hex");
  const secret = `keelson-planted-secret-${nonce}`;
  const base = existsSync("/var/tmp") ? "/var/tmp" : tmpdir();
  const made: string[] = [];
  const temp = async (where: string, label: string): Promise<string> => {
    const dir = await realpath(await mkdtemp(join(where, `keelson-sandbox-${label}-`)));
    made.push(dir);
    return dir;
  };
  const ws = await temp(tmpdir(), "ws");
  const outside = await temp(base, "outside");
  const home = await temp(base, "home");
  const keelsonHome = join(home, ".local", "share", "keelson");
  await mkdir(join(home, ".ssh"), { recursive: true });
  await writeFile(join(home, ".ssh", "id_ed25519"), `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n`);
  await writeFile(join(home, ".netrc"), `machine example.com login me password ${secret}\n`);
  await mkdir(join(keelsonHome, "sessions"), { recursive: true });
  await writeFile(join(keelsonHome, "sessions", "s.jsonl"), `{"secret":"${secret}"}\n`);
  await writeFile(join(outside, "target.txt"), "original\n");
  const hostTmpSecret = join(tmpdir(), `keelson-sandbox-host-secret-${nonce}`);
  await writeFile(hostTmpSecret, `${secret}\n`);
  const connections = { tcp: 0, unix: 0 };
  const tcp = createServer((s) => {
    connections.tcp++;
    s.destroy();
  });
  const unixSocket = join(outside, "service.sock");
  const unix = createServer((s) => {
    connections.unix++;
    s.destroy();
  });
  await listen(tcp, { host: "127.0.0.1", port: 0 });
  await listen(unix, { path: unixSocket });
  const tcpPort = (tcp.address() as { port: number }).port;
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    KEELSON_HOME: keelsonHome,
    LANG: "C",
  };
  return {
    ws,
    outside,
    home,
    keelsonHome,
    hostTmpSecret,
    secret,
    nonce,
    tcpPort,
    unixSocket,
    connections,
    async run(command, sandbox, timeoutMs = 60_000) {
      const tool = bashTool({ workspace: new Workspace({ root: ws }), sandbox, baseEnv: env });
      const output = await tool.execute(
        { command, timeoutMs },
        { callId: "c", sessionId: "s", signal: new AbortController().signal },
      );
      if (typeof output === "string") return { text: output, isError: false, meta: {} };
      return {
        text: output.content.map((p) => (p.type === "text" ? p.text : "")).join(""),
        isError: output.isError === true,
        meta: (output.meta ?? {}) as Record<string, unknown>,
      };
    },
    async dispose() {
      await Promise.all([close(tcp), close(unix)]);
      await rm(hostTmpSecret, { force: true });
      for (const dir of made) await rm(dir, { recursive: true, force: true });
    },
  };
}

function listen(server: Server, where: { host: string; port: number } | { path: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(where, () => resolve());
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
