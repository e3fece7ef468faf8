// The follow seal (src/fleet/follow-seal.ts, decision 0037): what followed turns send over NOTIFY
// opens only with the fleet's follow key and only on the channel it was sealed for.
import { describe, expect, test } from "vitest";
import { FollowSeal } from "../../src/fleet/follow-seal.js";

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
  });
});
