// The follow seal (src/fleet/follow-seal.ts, decision 0037): what followed turns send over NOTIFY
// opens only with the fleet's follow key and only on the channel it was sealed for; a rotated key
// is read again on a payload that does not open, and the key before it still opens.
import { afterEach, describe, expect, test, vi } from "vitest";
import { FOLLOW_KEY_RELOAD_MS, FollowSeal } from "../../src/fleet/follow-seal.js";

const seal = new FollowSeal(Buffer.alloc(32, 1));

describe("FollowSeal", () => {
  test("a sealed text opens on its channel, byte for byte (any characters); two seals of one text differ", () => {
    const text = 'é中😀 "quoted" \u2028 {"t":"1"}';
    const a = seal.seal("keelson_live_x", text);
    const b = seal.seal("keelson_live_x", text);
    expect(a).not.toBe(b); // a fresh nonce each time
    expect(a).toMatch(/^[A-Za-z0-9+/]+=*$/); // ASCII: frames count bytes as characters
    expect(seal.open("keelson_live_x", a)).toBe(text);
    expect(seal.open("keelson_live_x", b)).toBe(text);
  });

  test("a forged, altered, truncated, other channel's or other key's payload does not open", () => {
    const payload = seal.seal("keelson_follow", "session-1");
    const bytes = Buffer.from(payload, "base64");
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 1]! ^= 1;
    for (const bad of [
      "session-1", // a plain announcement, as before sealing
      '{"t":"1","a":1,"m":1,"s":0,"e":[]}',
      "",
      "!!!not base64!!!",
      flipped.toString("base64"),
      bytes.subarray(0, 20).toString("base64"),
      `${payload}AAAA`,
    ])
      expect(seal.open("keelson_follow", bad)).toBeUndefined();
    expect(seal.open("keelson_live_other", payload)).toBeUndefined();
    expect(new FollowSeal(Buffer.alloc(32, 2)).open("keelson_follow", payload)).toBeUndefined();
  });

  test("a key that is not 32 bytes is refused", () => {
    expect(() => new FollowSeal(Buffer.alloc(16))).toThrow(/32 bytes, not 16/);
    expect(() => new FollowSeal(Buffer.alloc(32)).rekey(Buffer.alloc(31))).toThrow(/32 bytes, not 31/);
  });
});

describe("a rotated follow key", () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const k1 = Buffer.alloc(32, 1);
  const k2 = Buffer.alloc(32, 2);
  const k3 = Buffer.alloc(32, 3);

  test("rekey: seals under the new key; the key before it still opens, the one before that does not", () => {
    const sender = new FollowSeal(k1);
    const underK1 = sender.seal("c", "one");
    expect(sender.rekey(k1)).toBe(false); // the same key: nothing changes
    expect(sender.rekey(k2)).toBe(true);
    const underK2 = sender.seal("c", "two");
    expect(new FollowSeal(k2).open("c", underK2)).toBe("two");
    expect(new FollowSeal(k1).open("c", underK2)).toBeUndefined();
    expect(sender.open("c", underK1)).toBe("one"); // the previous key
    expect(sender.rekey(k3)).toBe(true);
    expect(sender.open("c", underK2)).toBe("two");
    expect(sender.open("c", underK1)).toBeUndefined(); // two rotations back
  });

  test("reloadKey reads the key again — changed, same — at most once per FOLLOW_KEY_RELOAD_MS; a failed read or no reader is skipped", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    let stored = k1;
    let reads = 0;
    let fail = false;
    const seal = new FollowSeal(k1, async () => {
      reads++;
      if (fail) throw new Error("the database is away");
      return stored;
    });
    expect(await seal.reloadKey()).toBe("same");
    stored = k2;
    expect(await seal.reloadKey()).toBe("skipped"); // too soon: no read
    expect(reads).toBe(1);
    vi.advanceTimersByTime(FOLLOW_KEY_RELOAD_MS);
    const [a, b] = await Promise.all([seal.reloadKey(), seal.reloadKey()]); // one read for both
    expect([a, b, reads]).toEqual(["changed", "changed", 2]);
    expect(new FollowSeal(k2).open("c", seal.seal("c", "sealed under k2"))).toBe("sealed under k2");
    vi.advanceTimersByTime(FOLLOW_KEY_RELOAD_MS);
    fail = true;
    expect(await seal.reloadKey()).toBe("skipped");
    expect(reads).toBe(3);
    expect(await new FollowSeal(k1).reloadKey()).toBe("skipped"); // no reader: the key stays
  });
});
