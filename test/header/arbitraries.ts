// fast-check arbitraries for request headers, shared by the header and reconstruct tests.
// Generated values are lossless JSON (no -0, NaN or non-round-tripping floats), so they can be
// appended to a Session as-is. Absence is generated in every representation: key omitted,
// `""` system, `[]` tools, `[]` prefix.
import fc from "fast-check";
import type { EpochHeader, RequestConfig } from "../../src/header/index.js";
import type { ToolSchema } from "../../src/llm/core.js";
import type { JsonObject, JsonValue } from "../../src/json/index.js";
import type { Message } from "../../src/messages/index.js";

const keyArb = fc.constantFrom("a", "b", "type", "items", "x-y", "Z", "0");

export const jsonArb: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -100, max: 100 }),
    fc.string({ maxLength: 6 }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(keyArb, tie("value"), { maxKeys: 3, noNullPrototype: true }),
  ),
})).value;

const jsonObjectArb: fc.Arbitrary<JsonObject> = fc.dictionary(keyArb, jsonArb, { maxKeys: 3, noNullPrototype: true });

export const configArb: fc.Arbitrary<RequestConfig> = fc
  .record(
    {
      model: fc.constantFrom("emulator:a", "emulator:b", "claude-x", "deepseek-chat"),
      temperature: fc.integer({ min: 0, max: 20 }).map((n) => n / 10),
      maxTokens: fc.integer({ min: 1, max: 8192 }),
      stop: fc.array(fc.constantFrom("END", "\n\n", "</done>"), { maxLength: 2 }),
      extra: fc.dictionary(fc.constantFrom("x_top_p", "x_seed", "x_meta", "x_flags"), jsonArb, {
        maxKeys: 2,
        noNullPrototype: true,
      }),
    },
    { requiredKeys: ["model", "extra"], noNullPrototype: true },
  )
  .map(({ extra, ...known }) => ({ ...extra, ...known }) as RequestConfig);

/** System-prompt lines from a small alphabet, so two prompts often share leading/trailing lines. */
export const lineArb = fc.constantFrom(
  "",
  "You are a careful assistant.",
  "Answer briefly.",
  "Rule 1.",
  "Rule 2.",
  "  - indented",
  "Rule 1.",
);

export const systemArb: fc.Arbitrary<string | undefined> = fc.oneof(fc.constant(undefined), fc.constant(""), {
  arbitrary: fc.array(lineArb, { maxLength: 6 }).map((lines) => lines.join("\n")),
  weight: 3,
});

const schemaArb: fc.Arbitrary<JsonObject> = fc
  .record({
    properties: fc.dictionary(keyArb, fc.constant({ type: "string" }), { maxKeys: 2, noNullPrototype: true }),
    extra: jsonObjectArb,
  })
  .map(({ properties, extra }) => ({ ...extra, type: "object", properties }));

export const toolNameArb = fc.constantFrom("read", "write", "grep", "bash", "edit", "ls", "glob", "fetch");

export const toolArb: fc.Arbitrary<ToolSchema> = fc
  .record(
    {
      name: toolNameArb,
      description: fc.constantFrom("reads a file", "writes a file", "runs things", ""),
      inputSchema: schemaArb,
    },
    { requiredKeys: ["name", "inputSchema"], noNullPrototype: true },
  )
  .map((t) => t as ToolSchema);

/** Unique names, random order; `undefined` and `[]` both mean "no tools". */
export const toolsArb: fc.Arbitrary<readonly ToolSchema[] | undefined> = fc.option(
  fc.uniqueArray(toolArb, { selector: (t) => t.name, maxLength: 4 }),
  {
    nil: undefined,
  },
);

export const messageArb: fc.Arbitrary<Message> = fc.oneof(
  fc
    .string({ maxLength: 8 })
    .map((t): Message => ({ role: "user", content: [{ type: "text", text: `<reminder>${t}</reminder>` }] })),
  fc
    .string({ maxLength: 8 })
    .map((t): Message => ({ role: "assistant", content: [{ type: "text", text: `noted ${t}` }] })),
);

export const prefixArb: fc.Arbitrary<readonly Message[] | undefined> = fc.option(
  fc.array(messageArb, { maxLength: 3 }),
  { nil: undefined },
);

export function makeHeader(
  config: RequestConfig,
  system: string | undefined,
  tools: readonly ToolSchema[] | undefined,
  messagePrefix: readonly Message[] | undefined,
): EpochHeader {
  return {
    config,
    ...(system === undefined ? {} : { system }),
    ...(tools === undefined ? {} : { tools }),
    ...(messagePrefix === undefined ? {} : { messagePrefix }),
  };
}

export const epochHeaderArb: fc.Arbitrary<EpochHeader> = fc
  .tuple(configArb, systemArb, toolsArb, prefixArb)
  .map(([config, system, tools, prefix]) => makeHeader(config, system, tools, prefix));

/** A copy of `value` with every object's keys inserted in reverse order. */
export function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T;
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  ) as T;
}

const linesOf = (s: string | undefined): string[] => (s === undefined || s === "" ? [] : s.split("\n"));

/** `system` with one contiguous run of lines replaced by 0–3 new lines. */
function editedSystemArb(system: string | undefined): fc.Arbitrary<string | undefined> {
  const lines = linesOf(system);
  return fc
    .tuple(fc.nat(lines.length), fc.nat(lines.length), fc.array(lineArb, { maxLength: 3 }))
    .map(([i, j, insert]) => {
      const [lo, hi] = i <= j ? [i, j] : [j, i];
      return [...lines.slice(0, lo), ...insert, ...lines.slice(hi)].join("\n");
    });
}

/** An edit of `tools`: shuffled, some removed, some added, one changed, or emptied. */
function editedToolsArb(tools: readonly ToolSchema[] | undefined): fc.Arbitrary<readonly ToolSchema[] | undefined> {
  const list = [...(tools ?? [])];
  const names = new Set(list.map((t) => t.name));
  return fc.oneof(
    fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }),
    fc.subarray(list),
    fc
      .uniqueArray(toolArb, { selector: (t) => t.name, maxLength: 2 })
      .map((extra) => [...list, ...extra.filter((t) => !names.has(t.name))]),
    fc
      .tuple(fc.nat(), schemaArb)
      .map(([i, inputSchema]) =>
        list.map((t, k) => (list.length > 0 && k === i % list.length ? { ...t, inputSchema } : t)),
      ),
    fc.constantFrom(undefined, []),
  );
}

/** A header derived from `a` by changing some of its parts (often just one). */
export function mutatedHeaderArb(a: EpochHeader): fc.Arbitrary<EpochHeader> {
  return fc
    .tuple(
      fc.oneof(fc.constant(a.config), fc.constant(reverseKeys(a.config)), configArb),
      fc.oneof(
        { arbitrary: fc.constant(a.system), weight: 2 },
        { arbitrary: editedSystemArb(a.system), weight: 3 },
        { arbitrary: systemArb, weight: 1 },
      ),
      fc.oneof(fc.constant(a.tools), editedToolsArb(a.tools), toolsArb),
      fc.oneof(fc.constant(a.messagePrefix), prefixArb),
    )
    .map(([config, system, tools, prefix]) => makeHeader(config, system, tools, prefix));
}

/** Pairs of headers: unrelated, related by an edit, or identical. */
export const headerPairArb: fc.Arbitrary<readonly [EpochHeader, EpochHeader]> = fc.oneof(
  fc.tuple(epochHeaderArb, epochHeaderArb),
  epochHeaderArb.chain((a) => mutatedHeaderArb(a).map((b) => [a, b] as const)),
  epochHeaderArb.chain((a) => mutatedHeaderArb(a).map((b) => [a, b] as const)),
  epochHeaderArb.map((a) => [a, reverseKeys(a)] as const),
);

/**
 * True when the tools arm can express `a → b`: the delta keeps surviving tools in `a`'s order
 * (changed ones in place) and appends new ones, so `b` must list its tools in that order.
 */
export function toolOrderExpressible(a: EpochHeader, b: EpochHeader): boolean {
  const before = (a.tools ?? []).map((t) => t.name);
  const after = (b.tools ?? []).map((t) => t.name);
  const expected = [...before.filter((n) => after.includes(n)), ...after.filter((n) => !before.includes(n))];
  return expected.join("\u0000") === after.join("\u0000");
}
