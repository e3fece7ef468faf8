// Random valid logs for property tests: a fast-check arbitrary of operations (turns with steps,
// tool calls and header changes; injects; compaction-style replaces; tool-result pruning) and
// `buildLog`, which applies them to a Session through the public API.
import fc from "fast-check";
import type { EpochHeader } from "../../src/header/index.js";
import { isPairingBalanced, type Session } from "../../src/session/index.js";
import { baseHeader, LogDriver, newSession, text, tool } from "./builders.js";

export type HeaderChange = "none" | "system" | "tools" | "config" | "prefix" | "reorder";

export type LogOp =
  | { readonly kind: "turn"; readonly steps: readonly { readonly calls: number; readonly change: HeaderChange }[] }
  | { readonly kind: "inject" }
  | { readonly kind: "replace"; readonly start: number; readonly length: number }
  | { readonly kind: "prune"; readonly which: number };

const changeArb = fc.constantFrom<HeaderChange>(
  "none",
  "none",
  "none",
  "system",
  "tools",
  "config",
  "prefix",
  "reorder",
);

export const logOpArb: fc.Arbitrary<LogOp> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("turn" as const),
      steps: fc.array(fc.record({ calls: fc.nat(3), change: changeArb }), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("inject" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("replace" as const), start: fc.nat(40), length: fc.nat(8) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("prune" as const), which: fc.nat(40) }) },
);

export const logOpsArb = fc.array(logOpArb, { maxLength: 10 });

function changed(header: EpochHeader, change: HeaderChange, n: number): EpochHeader {
  switch (change) {
    case "none":
      return header;
    case "system":
      return { ...header, system: `${header.system ?? ""}\nRule ${n}.` };
    case "tools":
      return { ...header, tools: [...(header.tools ?? []), tool(`t${n}`)] };
    case "config":
      return { ...header, config: { ...header.config, temperature: (n % 10) / 10 } };
    case "prefix":
      return {
        ...header,
        messagePrefix: [{ role: "user", content: [text(`<system-reminder>catalog v${n}</system-reminder>`)] }],
      };
    case "reorder":
      return { ...header, tools: [...(header.tools ?? [])].reverse() };
  }
}

/** Applies `ops` to a fresh session (or `session`) and returns it. Every op keeps the log valid. */
export function buildLog(ops: readonly LogOp[], session: Session = newSession()): Session {
  let header = baseHeader();
  const driver = new LogDriver(session, header);
  let n = 0;
  for (const op of ops) {
    n++;
    const turn = session.lastTurn + 1;
    switch (op.kind) {
      case "turn":
        driver.turn({
          prompt: `prompt ${n}`,
          steps: op.steps.map((s, i) => {
            header = changed(header, s.change, n * 10 + i);
            return {
              header,
              text: `answer ${n}.${i}`,
              toolCalls: Array.from({ length: s.calls }, (_, k) => ({
                name: "read",
                args: `{"path":"f${k}"}`,
                result: `contents ${n}.${i}.${k}`,
              })),
            };
          }),
        });
        break;
      case "inject":
        session.append("turn/start", { turn, trigger: "inject" });
        session.append("context/message", { content: [text(`context ${n}`)], source: "inject" });
        session.append("turn/end", { turn, reason: { kind: "completed" } });
        break;
      case "replace": {
        const region = findBalancedRegion(session, op.start, op.length);
        if (region === undefined) break;
        session.append("turn/start", { turn, trigger: "compact" });
        session.append("compact/start", { turn, trigger: "manual" });
        session.append(
          "user/message",
          { content: [text(`summary of ${region.start}..${region.end}`)], source: "compaction" },
          { op: "replace", ...region },
        );
        session.append("compact/end", { turn });
        session.append("turn/end", { turn, reason: { kind: "completed" } });
        break;
      }
      case "prune": {
        const messages = session.deriveMessages();
        const tools = messages.map((m, i) => (m.role === "tool" ? i : -1)).filter((i) => i >= 0);
        if (tools.length === 0) break;
        const at = tools[op.which % tools.length]!;
        const target = messages[at]!;
        if (target.role !== "tool") break;
        const seq = session.surfaceSeqs()[at]!;
        const original = session.events[seq]!;
        const data = original.data as { turn: number; step: number; callId: string };
        session.append("turn/start", { turn, trigger: "prune" });
        session.append(
          "tool/result",
          {
            turn: data.turn,
            step: data.step,
            callId: data.callId,
            content: [text("[pruned]")],
            isError: false,
            meta: { prunedFrom: seq },
          },
          { op: "replace", start: at, end: at },
        );
        session.append("turn/end", { turn, reason: { kind: "completed" } });
        break;
      }
    }
  }
  return session;
}

/** The first tool-pairing-balanced region at or after `start` of at most `length + 1` nodes. */
export function findBalancedRegion(
  session: Session,
  start: number,
  length: number,
): { start: number; end: number } | undefined {
  const messages = session.deriveMessages();
  for (let s = Math.min(start, messages.length - 1); s >= 0 && s < messages.length; s++) {
    for (let e = Math.min(messages.length - 1, s + length); e >= s; e--) {
      if (isPairingBalanced(messages.slice(s, e + 1))) return { start: s, end: e };
    }
  }
  return undefined;
}
