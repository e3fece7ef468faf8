// 200 sessions in one host (issue #22 §4): two prompts each, all queued at once, under maxOpen 50
// — every session gets its two turns in order, every log verifies, and the host ends with
// nothing open, running or queued.
import { expect, test } from "vitest";
import { createAgentHost } from "../../src/host/index.js";
import { ScriptedProvider } from "../../src/llm/core.js";
import { lastPrompt, ManualClock, profileOf, promptsByTurn, storedLog, tempStore } from "./support.js";

test("200 sessions, two prompts each, queued at once: separate turns in order, logs clean, bounded open agents", async () => {
  const fixture = await tempStore();
  try {
    const provider = new ScriptedProvider([], {
      fallback: (request) => ({ text: `re: ${lastPrompt(request)}` }),
      record: false,
    });
    const host = createAgentHost({
      store: fixture.store,
      profile: profileOf(provider),
      maxOpen: 50,
      clock: new ManualClock(),
    });
    const ids = Array.from({ length: 200 }, (_, i) => `many-${i}`);
    let peakOpen = 0;
    const sends = ids.flatMap((id) =>
      ["first", "second"].map((p) =>
        host.send(id, `${id} ${p}`).then((outcome) => {
          peakOpen = Math.max(peakOpen, host.stats().open);
          return outcome;
        }),
      ),
    );
    expect(host.stats().queued).toBe(400);
    const outcomes = await Promise.all(sends);
    expect(outcomes.map((o) => o.turn)).toEqual(ids.flatMap(() => [1, 2]));
    expect(outcomes.map((o) => o.text)).toEqual(ids.flatMap((id) => [`re: ${id} first`, `re: ${id} second`]));
    expect(host.stats()).toMatchObject({ running: 0, queued: 0 });
    expect(host.stats().open).toBeLessThanOrEqual(50);
    await host.close();
    expect(host.stats()).toEqual({ open: 0, running: 0, queued: 0 });
    for (const id of ids) {
      const { events, report } = await storedLog(fixture.store, id);
      expect(promptsByTurn(events)).toEqual([[`${id} first`], [`${id} second`]]);
      expect(report.ok).toBe(true);
    }
    expect(peakOpen).toBeGreaterThan(0);
  } finally {
    await fixture.cleanup();
  }
}, 120_000);
