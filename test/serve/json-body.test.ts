// readJsonBody, the door of a framework-free server's JSON routes (found from outside, #22): a
// character split between two socket chunks stays whole (the example's `body += chunk` turned a
// 600 KB mixed-script prompt into U+FFFD pairs); a body that is not application/json is 415 (a
// cross-site form or text/plain POST needs no preflight); over the limit is 413 without reading
// on; what is not UTF-8 JSON of an object is 400.
import { Readable } from "node:stream";
import type { IncomingMessage } from "node:http";
import { describe, expect, test } from "vitest";
import { readJsonBody, ServeError } from "../../src/serve/index.js";

/** A node:http-like request whose body arrives in `chunks`. */
function request(chunks: readonly Uint8Array[], headers: Record<string, string> = {}): IncomingMessage {
  const stream = Readable.from(chunks.map((c) => Buffer.from(c))) as unknown as IncomingMessage;
  Object.assign(stream, { headers: { "content-type": "application/json", ...headers } });
  return stream;
}

async function refusal(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal");
}

describe("readJsonBody", () => {
  test("a multi-byte character split between chunks is decoded whole", async () => {
    const prompt = "héllo wörld 😀 日本語 ".repeat(2000);
    const bytes = new TextEncoder().encode(JSON.stringify({ prompt }));
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 7) chunks.push(bytes.subarray(at, at + 7)); // 7: splits most characters
    expect(await readJsonBody(request(chunks))).toEqual({ prompt });
  });

  test("a client that goes away mid-body: connection-lost (400), typed, the cause kept", async () => {
    const broken = new Readable({
      read() {
        this.push(Buffer.from('{"pro'));
        this.destroy(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
      },
    }) as unknown as IncomingMessage;
    Object.assign(broken, { headers: { "content-type": "application/json", "content-length": "100" } });
    const error = await refusal(() => readJsonBody(broken));
    expect(error).toBeInstanceOf(ServeError);
    expect(error).toMatchObject({ code: "connection-lost", status: 400 });
    expect((error as Error).cause).toMatchObject({ code: "ECONNRESET" });
  });

  test("not application/json: 415, whatever the body", async () => {
    const body = [new TextEncoder().encode('{"prompt":"hi"}')];
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""])
      expect(await refusal(() => readJsonBody(request(body, { "content-type": type }))), type).toMatchObject({
        code: "unsupported-media-type",
        status: 415,
      });
    expect(await readJsonBody(request(body, { "content-type": "Application/JSON; charset=utf-8" }))).toEqual({
      prompt: "hi",
    });
  });

  test("over the limit: 413 from the declared length, or once the chunks pass it (reading stops there)", async () => {
    const declared = request([new Uint8Array(10)], { "content-length": "2000" });
    expect(await refusal(() => readJsonBody(declared, { maxBytes: 1000 }))).toMatchObject({ status: 413 });
    let pulled = 0;
    const endless = Readable.from(
      (function* () {
        for (;;) {
          pulled++;
          yield Buffer.alloc(100, 32);
        }
      })(),
    ) as unknown as IncomingMessage;
    Object.assign(endless, { headers: { "content-type": "application/json" } });
    expect(await refusal(() => readJsonBody(endless, { maxBytes: 1000 }))).toMatchObject({
      code: "body-too-large",
      status: 413,
    });
    expect(pulled).toBeLessThan(50);
    for (const maxBytes of [0, -1, 1.5, Number.NaN, "1000"] as never[])
      expect(await refusal(() => readJsonBody(declared, { maxBytes }))).toMatchObject({
        name: "ServeError",
        code: "invalid-options",
      });
  });

  test("not UTF-8 JSON of an object: 400 invalid-request", async () => {
    for (const body of ["not json", "[1,2]", "null", "42", '"text"'])
      expect(await refusal(() => readJsonBody(request([new TextEncoder().encode(body)]))), body).toMatchObject({
        code: "invalid-request",
        status: 400,
      });
    const badUtf8 = request([new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])]);
    expect(await refusal(() => readJsonBody(badUtf8))).toMatchObject({ code: "invalid-request" });
  });

  test("a web Request reads the same way", async () => {
    const ok = new Request("http://x/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(await readJsonBody(ok)).toEqual({ a: 1 });
    const form = new Request("http://x/", { method: "POST", body: "a=1" });
    expect(await refusal(() => readJsonBody(form))).toMatchObject({ status: 415 });
  });
});
