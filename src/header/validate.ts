// Shape validation for headers and deltas read from a log or handed in by a caller.
import { MessageShapeError, typeName, validateMessages } from "../messages/index.js";
import { HeaderError, type HeaderDelta, type EpochHeader } from "./types.js";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

function validateTool(tool: unknown, path: string, fail: (p: string, d: string) => never): void {
  if (!isRecord(tool)) fail(path, `expected a tool object, got ${typeName(tool)}`);
  const t = tool as Record<string, unknown>;
  if (typeof t.name !== "string" || t.name === "") fail(`${path}.name`, "expected a non-empty string");
  if (t.description !== undefined && typeof t.description !== "string") fail(`${path}.description`, "expected a string");
  if (!isRecord(t.inputSchema)) fail(`${path}.inputSchema`, "expected a JSON Schema object");
}

function validateTools(tools: unknown, path: string, fail: (p: string, d: string) => never): void {
  if (!Array.isArray(tools)) fail(path, `expected an array, got ${typeName(tools)}`);
  const names = new Set<string>();
  (tools as unknown[]).forEach((tool, i) => {
    validateTool(tool, `${path}[${i}]`, fail);
    const name = (tool as { name: string }).name;
    if (names.has(name)) fail(`${path}[${i}].name`, `duplicate tool name ${JSON.stringify(name)}`);
    names.add(name);
  });
}

function validateConfig(config: unknown, path: string, fail: (p: string, d: string) => never): void {
  if (!isRecord(config)) fail(path, `expected an object, got ${typeName(config)}`);
  if (typeof (config as Record<string, unknown>).model !== "string") fail(`${path}.model`, "expected a model id string");
}

function validatePrefix(prefix: unknown, path: string, fail: (p: string, d: string) => never): void {
  try {
    validateMessages(prefix, path);
  } catch (e) {
    if (e instanceof MessageShapeError) fail(e.path, e.detail);
    throw e;
  }
}

const failer =
  (code: "invalid-header" | "invalid-delta", what: string, seq?: number) =>
  (path: string, detail: string): never => {
    throw new HeaderError(code, `${what}${seq === undefined ? "" : ` at seq ${seq}`}: ${path}: ${detail}`, seq);
  };

/** Asserts an `EpochHeader` shape (config.model, system string, tools, messagePrefix messages). */
export function validateEpochHeader(raw: unknown, seq?: number): asserts raw is EpochHeader {
  const fail = failer("invalid-header", "invalid request header", seq);
  if (!isRecord(raw)) fail("header", `expected an object, got ${typeName(raw)}`);
  const h = raw as Record<string, unknown>;
  validateConfig(h.config, "header.config", fail);
  if (h.system !== undefined && typeof h.system !== "string") fail("header.system", "expected a string");
  if (h.tools !== undefined) validateTools(h.tools, "header.tools", fail);
  if (h.messagePrefix !== undefined) validatePrefix(h.messagePrefix, "header.messagePrefix", fail);
}

/** Asserts a `HeaderDelta` shape. */
export function validateHeaderDelta(raw: unknown, seq?: number): asserts raw is HeaderDelta {
  const fail = failer("invalid-delta", "invalid header delta", seq);
  if (!isRecord(raw)) fail("delta", `expected an object, got ${typeName(raw)}`);
  const d = raw as Record<string, unknown>;
  for (const key of Object.keys(d)) {
    if (!["system", "tools", "config", "messagePrefix"].includes(key)) fail(`delta.${key}`, "unknown delta arm");
  }
  if (d.system !== undefined) {
    const s = d.system as Record<string, unknown>;
    if (!isRecord(s) || !isCount(s.keepStart) || !isCount(s.keepEnd) || !Array.isArray(s.insert) || !s.insert.every((l) => typeof l === "string")) {
      fail("delta.system", "expected { keepStart, keepEnd, insert: string[] }");
    }
  }
  if (d.tools !== undefined) {
    const t = d.tools as Record<string, unknown>;
    if (!isRecord(t)) fail("delta.tools", "expected { added, removed, changed }");
    validateTools(t.added, "delta.tools.added", fail);
    validateTools(t.changed, "delta.tools.changed", fail);
    if (!Array.isArray(t.removed) || !t.removed.every((n) => typeof n === "string")) fail("delta.tools.removed", "expected an array of names");
  }
  if (d.config !== undefined) validateConfig(d.config, "delta.config", fail);
  if (d.messagePrefix !== undefined) validatePrefix(d.messagePrefix, "delta.messagePrefix", fail);
}
