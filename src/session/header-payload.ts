// Shape checks for the request-header payloads (`request/header`, `request/header-delta`).
// They live here, below the header layer, so that `Session.append` refuses a malformed header
// before it is logged (a log holding one could never be folded or resumed); the header layer's
// `validateEpochHeader` / `validateHeaderDelta` wrap these into `HeaderError`s.
// Each returns `undefined` or a problem written as "path: detail".
import { previewJson, previewName } from "../json/index.js";
import { MessageShapeError, typeName, validateMessages } from "../messages/index.js";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/** Config keys that would collide with the request's own fields when the config is spread into it. */
const RESERVED_CONFIG_KEYS = ["system", "tools", "messages", "signal", "sessionId", "prefixLength"];

function toolProblem(tool: unknown, path: string): string | undefined {
  if (!isRecord(tool)) return `${path}: expected a tool object, got ${typeName(tool)}`;
  if (typeof tool.name !== "string" || tool.name === "") return `${path}.name: expected a non-empty string`;
  if (tool.description !== undefined && typeof tool.description !== "string")
    return `${path}.description: expected a string`;
  if (!isRecord(tool.inputSchema)) return `${path}.inputSchema: expected a JSON Schema object`;
  return undefined;
}

function toolsProblem(tools: unknown, path: string): string | undefined {
  if (!Array.isArray(tools)) return `${path}: expected an array, got ${typeName(tools)}`;
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const problem = toolProblem(tools[i], `${path}[${i}]`);
    if (problem !== undefined) return problem;
    const name = (tools[i] as { name: string }).name;
    if (names.has(name)) return `${path}[${i}].name: duplicate tool name ${previewJson(name)}`;
    names.add(name);
  }
  return undefined;
}

function configProblem(config: unknown, path: string): string | undefined {
  if (!isRecord(config)) return `${path}: expected an object, got ${typeName(config)}`;
  if (typeof config.model !== "string" || config.model === "") return `${path}.model: expected a model id string`;
  if (
    config.temperature !== undefined &&
    (typeof config.temperature !== "number" || !Number.isFinite(config.temperature))
  ) {
    return `${path}.temperature: expected a number`;
  }
  if (config.maxTokens !== undefined && !(Number.isSafeInteger(config.maxTokens) && (config.maxTokens as number) > 0)) {
    return `${path}.maxTokens: expected a positive integer`;
  }
  if (config.stop !== undefined && !(Array.isArray(config.stop) && config.stop.every((s) => typeof s === "string"))) {
    return `${path}.stop: expected an array of strings`;
  }
  for (const key of RESERVED_CONFIG_KEYS)
    if (key in config) return `${path}.${key}: reserved for the request itself, not a config field`;
  return config.output === undefined ? undefined : outputProblem(config.output, `${path}.output`);
}

/** `^[A-Za-z0-9_-]{1,64}$`: OpenAI's rule for a `json_schema` name, kept for every provider. */
const OUTPUT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Structured output in a config: exactly `{ name, schema }`, the schema an object-rooted JSON Schema. */
function outputProblem(output: unknown, path: string): string | undefined {
  if (!isRecord(output)) return `${path}: expected { name, schema }, got ${typeName(output)}`;
  for (const key in output)
    if (key !== "name" && key !== "schema") return `${path}.${previewName(key)}: unknown output field`;
  if (typeof output.name !== "string" || !OUTPUT_NAME.test(output.name))
    return `${path}.name: expected a name matching ${OUTPUT_NAME.source}, got ${previewJson(output.name)}`;
  if (!isRecord(output.schema)) return `${path}.schema: expected a JSON Schema object, got ${typeName(output.schema)}`;
  if (output.schema.type !== "object")
    return `${path}.schema.type: expected "object" (structured output is a JSON object), got ${previewJson(output.schema.type)}`;
  return undefined;
}

function prefixProblem(prefix: unknown, path: string): string | undefined {
  try {
    validateMessages(prefix, path);
    return undefined;
  } catch (e) {
    if (e instanceof MessageShapeError) return `${e.path}: ${e.detail}`;
    throw e;
  }
}

/** What is wrong with an `EpochHeader`-shaped value, or undefined. */
export function epochHeaderProblem(raw: unknown, path = "header"): string | undefined {
  if (!isRecord(raw)) return `${path}: expected an object, got ${typeName(raw)}`;
  for (const key in raw) {
    if (key !== "config" && key !== "system" && key !== "tools" && key !== "messagePrefix")
      return `${path}.${previewName(key)}: unknown header field`;
  }
  return (
    configProblem(raw.config, `${path}.config`) ??
    (raw.system !== undefined && typeof raw.system !== "string" ? `${path}.system: expected a string` : undefined) ??
    (raw.tools === undefined ? undefined : toolsProblem(raw.tools, `${path}.tools`)) ??
    (raw.messagePrefix === undefined ? undefined : prefixProblem(raw.messagePrefix, `${path}.messagePrefix`))
  );
}

/** What is wrong with a `HeaderDelta`-shaped value, or undefined. */
export function headerDeltaProblem(raw: unknown, path = "delta"): string | undefined {
  if (!isRecord(raw)) return `${path}: expected an object, got ${typeName(raw)}`;
  for (const key in raw) {
    if (key !== "system" && key !== "tools" && key !== "config" && key !== "messagePrefix")
      return `${path}.${previewName(key)}: unknown delta arm`;
  }
  if (raw.system !== undefined) {
    const s = raw.system;
    if (
      !isRecord(s) ||
      !isCount(s.keepStart) ||
      !isCount(s.keepEnd) ||
      !Array.isArray(s.insert) ||
      !s.insert.every((l) => typeof l === "string")
    ) {
      return `${path}.system: expected { keepStart, keepEnd, insert: string[] }`;
    }
  }
  if (raw.tools !== undefined) {
    const t = raw.tools;
    if (!isRecord(t)) return `${path}.tools: expected { added, removed, changed }`;
    const problem = toolsProblem(t.added, `${path}.tools.added`) ?? toolsProblem(t.changed, `${path}.tools.changed`);
    if (problem !== undefined) return problem;
    if (!Array.isArray(t.removed) || !t.removed.every((n) => typeof n === "string"))
      return `${path}.tools.removed: expected an array of names`;
  }
  if (raw.config !== undefined) {
    const problem = configProblem(raw.config, `${path}.config`);
    if (problem !== undefined) return problem;
  }
  return raw.messagePrefix === undefined ? undefined : prefixProblem(raw.messagePrefix, `${path}.messagePrefix`);
}
