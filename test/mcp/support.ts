// Helpers for the MCP tests: an in-process fixture server (the SDK's InMemoryTransport), the
// fixture paths for spawned servers, agents over a ScriptedProvider, and the tool results of a log.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { SessionEvent } from "../../src/session/index.js";
import type { McpStdioServer, McpTransportServer } from "../../src/mcp/index.js";
import { createToolsServer } from "./fixtures/tools-server.mjs";

export const FIXTURES = resolve(import.meta.dirname, "fixtures");

/** A fixture server in this process, reached through a linked InMemoryTransport pair (one per agent). */
export function inProcessServer(tools?: string[]): McpTransportServer {
  return {
    transport: async () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      await createToolsServer(tools === undefined ? {} : { tools }).connect(server);
      return client;
    },
  };
}

/** The stdio fixture, spawned with this node (`tools` limits what it offers). */
export function stdioServer(tools?: string[], extra: Partial<McpStdioServer> = {}): McpStdioServer {
  return {
    command: process.execPath,
    args: [resolve(FIXTURES, "stdio-server.mjs"), ...(tools === undefined ? [] : [tools.join(",")])],
    ...extra,
  };
}

export interface ResultData {
  readonly callId: string;
  readonly content: readonly { type: string; text?: string; mediaType?: string; data?: string }[];
  readonly isError: boolean;
  readonly error?: string;
  readonly meta?: Record<string, unknown>;
}

export function toolResults(events: readonly SessionEvent[]): ResultData[] {
  return events.filter((e) => e.type === "tool/result").map((e) => e.data as unknown as ResultData);
}

export const textOf = (r: ResultData): string => r.content.map((p) => p.text ?? "").join("");

/** True while a process with `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of this process's children whose command line contains `needle` (Linux /proc). */
export function childrenRunning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle))
        pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Polls `check` every 20 ms until it holds or `ms` pass; returns whether it held. */
export async function eventually(check: () => boolean, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}
