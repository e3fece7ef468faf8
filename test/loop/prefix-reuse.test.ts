// prefixOnResume: 'reuse' keeps the logged prefix byte-for-byte on a new instance (the resume
// snapshot equals the previous one, the cache keeps everything) and turns drift into durable
// update messages; the default 'recompose' logs the drift on the resume snapshot instead.
import { describe, expect, test } from "vitest";
import { EmulatorProvider, type EmulatorRequest, SimulatedClock } from "../../src/emulator/index.js";
import { diffHeader, type EpochHeader } from "../../src/header/index.js";
import type { Message } from "../../src/messages/index.js";
import { type AgentPlugin, createAgent } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";

const catalog = (version: number): Message => ({
  role: "user",
  content: [{ type: "text", text: `<system-reminder>catalog v${version} ${"skill ".repeat(400)}</system-reminder>` }],
});
const contributor =
  (get: () => Message): AgentPlugin =>
  (host) => {
    host.on("agent/session-prefix", async (_payload, next) => [get(), ...(await next())]);
    return undefined;
  };
const snapshots = (events: readonly SessionEvent[]) =>
  events.filter((e) => e.type === "request/header").map((e) => (e.data as unknown as { header: EpochHeader }).header);

async function scenario(policy: "reuse" | "recompose", versionAfterRestart: number) {
  const clock = new SimulatedClock();
  const provider = new EmulatorProvider({
    model: (_r: EmulatorRequest) => ({ text: "ok" }),
    cacheStyle: "anthropic",
    clock,
    minCacheableTokens: 256,
  });
  let version = 1;
  const options = {
    provider,
    model: "emulator-anthropic",
    system: "Be brief.",
    plugins: [contributor(() => catalog(version))],
    prefixOnResume: policy,
  } as const;
  const first = createAgent(options);
  await first.send("one");
  await first.send("two");
  await first.dispose();
  version = versionAfterRestart;
  const drift: unknown[] = [];
  const second = createAgent({ ...options, session: first.session });
  second.hooks.on("agent/prefix-drift", ({ logged, composed, drifted }) => {
    drift.push({ logged, composed, drifted });
  });
  clock.advance(30_000);
  expect((await second.send("three")).reason).toEqual({ kind: "completed" });
  return { session: second.session, usages: provider.usages, drift };
}

describe("prefixOnResume", () => {
  test("reuse: the resume snapshot equals the previous one and the first resumed request reads the whole previous request from cache", async () => {
    const { session, usages, drift } = await scenario("reuse", 2);
    const [initial, resume] = snapshots(session.events);
    expect(diffHeader(initial!, resume!)).toBeUndefined();
    const prev = usages[1]!;
    expect(usages[2]!.cacheReadTokens).toBeGreaterThanOrEqual(
      prev.inputTokens + prev.cacheReadTokens + prev.cacheWriteTokens,
    );
    expect(drift).toHaveLength(1);
    expect((drift[0] as { drifted: number[] }).drifted).toEqual([0]); // the first (only) contributor drifted
    expect(verifyLog(session.events).ok).toBe(true);
  });

  test("reuse: a drifted contribution is appended once as a durable prefix-update context message in the first resumed request", async () => {
    const { session } = await scenario("reuse", 2);
    const updates = session.events.filter(
      (e) => e.type === "context/message" && (e.data as { source: string }).source === "prefix-update",
    );
    expect(updates).toHaveLength(1);
    expect(JSON.stringify(updates[0]!.data)).toContain("catalog v2");
    const lastUser = session
      .deriveMessages()
      .filter((m) => m.role === "user")
      .map((m) => JSON.stringify(m));
    expect(lastUser.some((m) => m.includes("catalog v2"))).toBe(true);
  });

  test("reuse with nothing drifted appends nothing and reports no drift", async () => {
    const { session, drift } = await scenario("reuse", 1);
    expect(session.events.some((e) => e.type === "context/message")).toBe(false);
    expect(drift).toHaveLength(0);
  });

  test("recompose (default): the resume snapshot carries the new prefix and the resumed request re-writes everything after the system prompt", async () => {
    const { session, usages } = await scenario("recompose", 2);
    const [initial, resume] = snapshots(session.events);
    expect(Object.keys(diffHeader(initial!, resume!) ?? {})).toEqual(["messagePrefix"]);
    const prev = usages[1]!;
    expect(usages[2]!.cacheReadTokens).toBeLessThan(prev.inputTokens + prev.cacheReadTokens + prev.cacheWriteTokens);
    expect(usages[2]!.cacheWriteTokens).toBeGreaterThan(0);
  });
});
