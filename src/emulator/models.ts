// The emulator's models, both functions of a normalized EmulatorRequest:
// ScriptedEmulatorModel — a FIFO of ScriptedReply (or functions of the request) per session
//   key, with a shared `default` queue and an optional fallback;
// RuleBasedModel — a small deterministic model for the offline demo: it summarizes a tool
//   result, calls any declared tool the prompt names ("call get_weather {"city":"Oslo"}"),
//   runs / writes / reads / lists with the usual tool names, and otherwise acknowledges; asked
//   for structured output, its final answer is JSON that matches the schema (structured-reply.ts).
import type { ToolSchema, ScriptedReply } from "../llm/index.js";
import type { Message } from "../messages/index.js";
import { structuredReply } from "./structured-reply.js";
import type { EmulatorModel, EmulatorModelFunction, EmulatorModelOption, EmulatorRequest } from "./types.js";
import { KeelsonError } from "../errors/index.js";

export type EmulatorStep = ScriptedReply | EmulatorModelFunction;

export class EmulatorModelError extends KeelsonError<"script-exhausted"> {}

export class ScriptedEmulatorModel implements EmulatorModel {
  /** Every request answered (or refused), in arrival order. */
  readonly requests: EmulatorRequest[] = [];
  readonly #queues = new Map<string, EmulatorStep[]>();
  readonly #fallback: EmulatorStep | undefined;

  constructor(script: readonly EmulatorStep[] = [], options: { fallback?: EmulatorStep } = {}) {
    this.#fallback = options.fallback;
    this.push(...script);
  }

  /** Appends steps to the shared `default` queue, used by any session without its own steps. */
  push(...steps: EmulatorStep[]): this {
    return this.pushFor("default", ...steps);
  }

  /** Appends steps for one session key (Anthropic `metadata.user_id`, OpenAI `prompt_cache_key`/`user`). */
  pushFor(sessionKey: string, ...steps: EmulatorStep[]): this {
    const queue = this.#queues.get(sessionKey) ?? [];
    queue.push(...steps);
    this.#queues.set(sessionKey, queue);
    return this;
  }

  /** Steps left for a session key (default: the shared queue). */
  remaining(sessionKey = "default"): number {
    return this.#queues.get(sessionKey)?.length ?? 0;
  }

  async reply(request: EmulatorRequest): Promise<ScriptedReply> {
    this.requests.push(request);
    const step =
      this.#queues.get(request.sessionKey)?.shift() ?? this.#queues.get("default")?.shift() ?? this.#fallback;
    if (step === undefined)
      throw new EmulatorModelError(
        "script-exhausted",
        `ScriptedEmulatorModel has no reply for session ${JSON.stringify(request.sessionKey)} (request ${this.requests.length})`,
      );
    return typeof step === "function" ? await step(request) : step;
  }
}

const PATH_TOKEN =
  /(?:^|[\s"'`(<[])((?:\.{0,2}\/)?(?:[\w@.-]+\/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s"'`)>\],:;!?]|\.(?:\s|$))/g;
const NOT_PATHS = new Set(["e.g", "i.e", "etc", "vs"]);
const READ_NAMES = new Set(["read", "read_file", "readfile", "cat", "view", "open_file"]);
const LIST_NAMES = new Set(["ls", "list", "list_files", "list_dir", "listdir"]);
const MUTATING = /write|edit|delete|remove|rm|move|mv|create|patch|apply/i;
const SHELL_NAMES = new Set(["bash", "shell", "sh", "run_command", "exec", "terminal"]);
const WRITE_NAMES = new Set(["write", "write_file", "writefile", "create_file"]);
/** "run `cmd`" — the command between the first pair of backticks after "run". */
const RUN_COMMAND = /\brun\s+`([^`]+)`/i;
/** "write `text` to path" — the text between backticks, then the path. */
const WRITE_TEXT = /\bwrite\s+`([^`]*)`\s+(?:to|into)\s+(\S+)/i;

/** "call NAME" / "use NAME" / "invoke NAME", then optionally a JSON object of arguments. */
const NAMED_CALL = /\b(?:call|use|invoke)\s+(?:the\s+)?`?([A-Za-z_][\w.-]*)`?(?:\s+tool)?(?:\s+with)?\s*(\{.*\})?/gis;

export class RuleBasedModel implements EmulatorModel {
  reply(request: EmulatorRequest): ScriptedReply {
    const reply = this.#answer(request);
    return request.output === undefined ? reply : structuredReply(reply, request.output);
  }

  #answer(request: EmulatorRequest): ScriptedReply {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return summarizeToolResult(request.messages, last.content[0]);
    const prompt = latestUserText(request.messages);
    // A declared tool named with JSON arguments wins; named bare, it comes after the rules below
    // ("use read on notes.txt" still reads notes.txt).
    const named = namedCall(prompt, request.tools);
    if (named?.explicit === true) return calling(named);
    const command = RUN_COMMAND.exec(prompt)?.[1];
    const shell = command === undefined ? undefined : request.tools.find((t) => SHELL_NAMES.has(t.name.toLowerCase()));
    if (command !== undefined && shell !== undefined)
      return { text: `Running ${command}.`, toolCalls: [{ name: shell.name, arguments: { command } }] };
    const write = WRITE_TEXT.exec(prompt);
    const writer = write === null ? undefined : request.tools.find((t) => WRITE_NAMES.has(t.name.toLowerCase()));
    if (write !== null && writer !== undefined) {
      const target = write[2]!.replace(/[.,;:!?]+$/, "");
      return {
        text: `Writing ${target}.`,
        toolCalls: [{ name: writer.name, arguments: { path: target, content: write[1]! } }],
      };
    }
    const path = findPath(prompt);
    const reader = path === undefined ? undefined : findReadTool(request.tools);
    if (path !== undefined && reader !== undefined)
      return { text: `Reading ${path}.`, toolCalls: [{ name: reader.name, arguments: { path } }] };
    const lister = /\b(?:list|ls)\b/i.test(prompt)
      ? request.tools.find((t) => LIST_NAMES.has(t.name.toLowerCase()))
      : undefined;
    if (lister !== undefined)
      return {
        text: "Listing the directory.",
        toolCalls: [{ name: lister.name, arguments: hasPathProperty(lister) ? { path: "." } : {} }],
      };
    if (named !== undefined) return calling(named);
    return { text: `Understood: ${prompt.replace(/\s+/g, " ").trim().slice(0, 80)}` };
  }
}

interface NamedCall {
  readonly name: string;
  readonly arguments: object;
  /** The prompt gave the arguments as JSON. */
  readonly explicit: boolean;
}

const calling = (call: NamedCall): ScriptedReply => ({
  text: `Calling ${call.name}.`,
  toolCalls: [{ name: call.name, arguments: call.arguments }],
});

/**
 * The declared tool the prompt asks for by name ("call get_weather", "use the `search` tool with
 * {"q":"x"}"), with the JSON object that follows as its arguments — or, without one, a
 * placeholder for each required property of its input schema ("" / 0 / false / [] / {}).
 */
function namedCall(prompt: string, tools: readonly ToolSchema[]): NamedCall | undefined {
  for (const match of prompt.matchAll(NAMED_CALL)) {
    const tool =
      tools.find((t) => t.name === match[1]) ?? tools.find((t) => t.name.toLowerCase() === match[1]!.toLowerCase());
    if (tool === undefined) continue;
    const given = match[2] === undefined ? undefined : jsonObjectAt(match[2]);
    return { name: tool.name, arguments: given ?? placeholderArguments(tool), explicit: given !== undefined };
  }
  return undefined;
}

/** The longest prefix of `text` that parses as a JSON object (the prompt may go on after it). */
function jsonObjectAt(text: string): object | undefined {
  for (let end = text.lastIndexOf("}"); end > 0; end = text.lastIndexOf("}", end - 1)) {
    try {
      const value: unknown = JSON.parse(text.slice(0, end + 1));
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return value;
    } catch {
      // not yet a whole object: try a shorter prefix
    }
  }
  return undefined;
}

const PLACEHOLDER: Readonly<Record<string, unknown>> = {
  string: "",
  number: 0,
  integer: 0,
  boolean: false,
  array: [],
  object: {},
};

function placeholderArguments(tool: ToolSchema): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: unknown; required?: unknown };
  const properties = (
    typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {}
  ) as Record<string, { type?: unknown }>;
  const required = Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === "string")
    : [];
  const args: Record<string, unknown> = {};
  for (const key of required) {
    const type = properties[key]?.type;
    args[key] = typeof type === "string" && type in PLACEHOLDER ? PLACEHOLDER[type] : "";
  }
  return args;
}

function summarizeToolResult(
  messages: readonly Message[],
  result: Message["content"][number] | undefined,
): ScriptedReply {
  if (result?.type !== "tool-result") return { text: "Done." };
  const name = findCallName(messages, result.callId) ?? "the tool";
  const text = result.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
  const firstLine =
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim()
      .slice(0, 120) ?? "";
  const what = result.isError ? `${name} failed` : `${name} returned`;
  return { text: firstLine === "" ? `${what} nothing.` : `${what}: "${firstLine}"` };
}

function findCallName(messages: readonly Message[], callId: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (block.type === "tool-call" && block.callId === callId) return block.name;
  }
  return undefined;
}

function findPath(prompt: string): string | undefined {
  for (const match of prompt.matchAll(PATH_TOKEN)) if (!NOT_PATHS.has(match[1]!.toLowerCase())) return match[1];
  return undefined;
}

function latestUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    if (message.role !== "user") continue;
    const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    if (text.trim() !== "") return text;
  }
  return "";
}

function hasPathProperty(tool: ToolSchema): boolean {
  const properties = tool.inputSchema.properties;
  return typeof properties === "object" && properties !== null && !Array.isArray(properties) && "path" in properties;
}

function findReadTool(tools: readonly ToolSchema[]): ToolSchema | undefined {
  return (
    tools.find((t) => READ_NAMES.has(t.name.toLowerCase())) ??
    tools.find((t) => hasPathProperty(t) && !MUTATING.test(t.name) && !LIST_NAMES.has(t.name.toLowerCase()))
  );
}

/** The model a server or provider option names. */
export function resolveModel(option: EmulatorModelOption | undefined): EmulatorModel {
  if (option === undefined || option === "rule-based") return new RuleBasedModel();
  if (typeof option === "function") return { reply: option };
  return option;
}
