// Follow announcements (src/fleet/follow-announcement.ts, decision 0037): a worker believes a
// sealed announcement once, and only near its time, so a captured one cannot be replayed.
import { describe, expect, test } from "vitest";
import { ANNOUNCEMENT_WINDOW_MS, AnnouncementCheck, announcementText } from "../../src/fleet/follow-announcement.js";

describe("AnnouncementCheck", () => {
  test("a fresh announcement names its session once; the same payload again is refused", () => {
    let now = 1_000_000;
    const check = new AnnouncementCheck(() => now);
    const text = announcementText("s 1 with spaces", now);
    expect(check.accept("payload-1", text)).toEqual({ sessionId: "s 1 with spaces", fresh: false });
    expect(check.accept("payload-1", text)).toBeUndefined(); // a replay, at once
    now += 1_000;
    expect(check.accept("payload-1", text)).toBeUndefined(); // a replay, later in the window
    expect(check.accept("payload-2", text)?.sessionId).toBe("s 1 with spaces"); // another sealing of it (a new nonce)
  });

  test("an announcement outside the window, either way, is refused; at its edge it is believed", () => {
    const now = 5_000_000;
    const check = new AnnouncementCheck(() => now);
    expect(check.accept("old", announcementText("s", now - ANNOUNCEMENT_WINDOW_MS - 1))).toBeUndefined();
    expect(check.accept("ahead", announcementText("s", now + ANNOUNCEMENT_WINDOW_MS + 1))).toBeUndefined();
    expect(check.accept("edge", announcementText("s", now - ANNOUNCEMENT_WINDOW_MS))?.sessionId).toBe("s");
    expect(check.accept("skewed", announcementText("s", now + 60_000))?.sessionId).toBe("s"); // a client's clock ahead
  });

  test("a follower that listened before the claim says so (fresh): no restart is needed for it (decision 0038)", () => {
    const now = 3_000_000;
    const check = new AnnouncementCheck(() => now);
    expect(check.accept("f", announcementText("s-1", now, true))).toEqual({ sessionId: "s-1", fresh: true });
    expect(check.accept("l", announcementText("s-1", now))).toEqual({ sessionId: "s-1", fresh: false });
  });

  test("what is not an announcement's shape is refused", () => {
    const now = 7_000_000;
    const check = new AnnouncementCheck(() => now);
    for (const [i, text] of [
      "session-1", // the shape before announcements carried their time
      `${now}`,
      `${now} `,
      ` ${now} s`,
      `${now}.5 s`,
      `1e400 s`,
      `NaN s`,
      `abc s`,
    ].entries())
      expect(check.accept(`p${i}`, text)).toBeUndefined();
  });

  test("remembered payloads are forgotten once out of the window, and never more than the bound", () => {
    let now = 9_000_000;
    const check = new AnnouncementCheck(() => now);
    expect(check.accept("first", announcementText("a", now))?.sessionId).toBe("a");
    for (let i = 0; i < 5_000; i++) expect(check.accept(`p${i}`, announcementText("b", now))?.sessionId).toBe("b");
    now += ANNOUNCEMENT_WINDOW_MS + 1;
    // Out of the window: refused by its time, whatever is remembered.
    expect(check.accept("first", announcementText("a", now - ANNOUNCEMENT_WINDOW_MS - 1))).toBeUndefined();
    expect(check.accept("later", announcementText("c", now))?.sessionId).toBe("c");
    expect(check.accept("later", announcementText("c", now))).toBeUndefined();
  });
});
