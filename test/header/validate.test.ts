// Shape validation of headers and deltas read from a log: malformed shapes are rejected with
// HeaderError codes 'invalid-header' / 'invalid-delta' and a message naming the bad path.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { HeaderError, type HeaderErrorCode, validateEpochHeader, validateHeaderDelta } from "../../src/header/index.js";
import { baseHeader, tool } from "../support/builders.js";
import { epochHeaderArb } from "./arbitraries.js";
import { thrown } from "../support/thrown.js";

const config = { model: "m" };
const schema = { type: "object" };
const noChange = { added: [], removed: [], changed: [] };

const rejection = (run: () => unknown): HeaderError => thrown(run, HeaderError);

function expectRejected(code: HeaderErrorCode, run: () => void, path: string): void {
  const error = rejection(run);
  expect(error.code).toBe(code);
  expect(error.message).toContain(`${path}:`);
}

describe("validateEpochHeader", () => {
  test("accepts every well-formed header, in any representation of absence", () => {
    fc.assert(
      fc.property(epochHeaderArb, (h) => {
        expect(() => validateEpochHeader(h)).not.toThrow();
        expect(() => validateEpochHeader(JSON.parse(JSON.stringify(h)))).not.toThrow();
      }),
    );
    expect(() => validateEpochHeader({ config, system: "", tools: [], messagePrefix: [] })).not.toThrow();
  });

  test.each<[string, unknown, string]>([
    ["null", null, "header"],
    ["an array", [], "header"],
    ["a missing config", {}, "header.config"],
    ["a config that is not an object", { config: "m" }, "header.config"],
    ["a config without model", { config: {} }, "header.config.model"],
    ["a non-string model", { config: { model: 4 } }, "header.config.model"],
    ["a non-string system", { config, system: ["line"] }, "header.system"],
    ["tools that are not an array", { config, tools: { read: tool("read") } }, "header.tools"],
    ["a tool that is not an object", { config, tools: ["read"] }, "header.tools[0]"],
    ["a tool with an empty name", { config, tools: [{ name: "", inputSchema: schema }] }, "header.tools[0].name"],
    ["a tool without inputSchema", { config, tools: [tool("read"), { name: "write" }] }, "header.tools[1].inputSchema"],
    [
      "a tool whose inputSchema is an array",
      { config, tools: [{ name: "a", inputSchema: [] }] },
      "header.tools[0].inputSchema",
    ],
    [
      "a non-string tool description",
      { config, tools: [{ name: "a", description: 1, inputSchema: schema }] },
      "header.tools[0].description",
    ],
    ["duplicate tool names", { config, tools: [tool("read"), tool("read")] }, "header.tools[1].name"],
    ["a prefix that is not an array", { config, messagePrefix: "hello" }, "header.messagePrefix"],
    [
      "a prefix message with an unknown role",
      { config, messagePrefix: [{ role: "system", content: [] }] },
      "header.messagePrefix[0].role",
    ],
    [
      "a user prefix message holding a tool call",
      {
        config,
        messagePrefix: [{ role: "user", content: [{ type: "tool-call", callId: "c", name: "n", arguments: "{}" }] }],
      },
      "header.messagePrefix[0].content[0].type",
    ],
    [
      "a text block without text",
      { config, messagePrefix: [{ role: "user", content: [{ type: "text" }] }] },
      "header.messagePrefix[0].content[0].text",
    ],
  ])("rejects %s as invalid-header naming the path", (_what, raw, path) => {
    expectRejected("invalid-header", () => validateEpochHeader(raw), path);
  });

  test("names the seq of the offending event when given one", () => {
    const error = rejection(() => validateEpochHeader({ config: {} }, 12));
    expect(error.seq).toBe(12);
    expect(error.message).toContain("at seq 12");
  });

  test("leaves seq undefined when not validating a logged event", () => {
    expect(rejection(() => validateEpochHeader({ config: {} })).seq).toBeUndefined();
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["temperature", { model: "m", temperature: "hot" }, "header.config.temperature"],
    ["maxTokens", { model: "m", maxTokens: "many" }, "header.config.maxTokens"],
    ["stop", { model: "m", stop: "END" }, "header.config.stop"],
  ])("rejects a config whose %s has the wrong type (RequestConfig declares it)", (_field, badConfig, path) => {
    expectRejected("invalid-header", () => validateEpochHeader({ ...baseHeader(), config: badConfig }), path);
  });
});

describe("validateHeaderDelta", () => {
  test("accepts the empty delta, a transition to no prefix and a full delta", () => {
    expect(() => validateHeaderDelta({})).not.toThrow();
    expect(() => validateHeaderDelta({ messagePrefix: [] })).not.toThrow();
    expect(() =>
      validateHeaderDelta({
        system: { keepStart: 1, keepEnd: 0, insert: ["", "x"] },
        tools: { added: [tool("ls")], removed: ["read"], changed: [tool("grep")] },
        config: { model: "n", temperature: 0.5 },
        messagePrefix: [{ role: "assistant", content: [{ type: "text", text: "ok" }] }],
      }),
    ).not.toThrow();
  });

  test.each<[string, unknown, string]>([
    ["null", null, "delta"],
    ["an array", [], "delta"],
    ["an unknown arm", { header: {} }, "delta.header"],
    ["a system arm that is a string", { system: "new prompt" }, "delta.system"],
    ["a negative keepStart", { system: { keepStart: -1, keepEnd: 0, insert: [] } }, "delta.system"],
    ["a fractional keepEnd", { system: { keepStart: 0, keepEnd: 0.5, insert: [] } }, "delta.system"],
    ["non-string inserted lines", { system: { keepStart: 0, keepEnd: 0, insert: [1] } }, "delta.system"],
    ["a missing insert", { system: { keepStart: 0, keepEnd: 0 } }, "delta.system"],
    ["a tools arm that is an array", { tools: [] }, "delta.tools"],
    ["a tools arm without added", { tools: { removed: [], changed: [] } }, "delta.tools.added"],
    [
      "an added tool without inputSchema",
      { tools: { ...noChange, added: [{ name: "a" }] } },
      "delta.tools.added[0].inputSchema",
    ],
    [
      "duplicate changed tools",
      { tools: { ...noChange, changed: [tool("read"), tool("read")] } },
      "delta.tools.changed[1].name",
    ],
    ["removed names that are not strings", { tools: { ...noChange, removed: [1] } }, "delta.tools.removed"],
    ["a config without model", { config: { temperature: 1 } }, "delta.config.model"],
    ["a prefix that is not an array", { messagePrefix: {} }, "delta.messagePrefix"],
    [
      "a tool message without its result block",
      { messagePrefix: [{ role: "tool", content: [] }] },
      "delta.messagePrefix[0].content",
    ],
  ])("rejects %s as invalid-delta naming the path", (_what, raw, path) => {
    expectRejected("invalid-delta", () => validateHeaderDelta(raw), path);
  });

  test("names the seq of the offending event when given one", () => {
    const error = rejection(() => validateHeaderDelta({ bogus: 1 }, 7));
    expect(error.code).toBe("invalid-delta");
    expect(error.seq).toBe(7);
    expect(error.message).toContain("at seq 7");
  });
});
