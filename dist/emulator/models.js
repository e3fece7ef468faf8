import { KeelsonError } from "../errors/index.js";
export class EmulatorModelError extends KeelsonError {
}
export class ScriptedEmulatorModel {
    /** Every request answered (or refused), in arrival order. */
    requests = [];
    #queues = new Map();
    #fallback;
    constructor(script = [], options = {}) {
        this.#fallback = options.fallback;
        this.push(...script);
    }
    /** Appends steps to the shared `default` queue, used by any session without its own steps. */
    push(...steps) {
        return this.pushFor("default", ...steps);
    }
    /** Appends steps for one session key (Anthropic `metadata.user_id`, OpenAI `prompt_cache_key`/`user`). */
    pushFor(sessionKey, ...steps) {
        const queue = this.#queues.get(sessionKey) ?? [];
        queue.push(...steps);
        this.#queues.set(sessionKey, queue);
        return this;
    }
    /** Steps left for a session key (default: the shared queue). */
    remaining(sessionKey = "default") {
        return this.#queues.get(sessionKey)?.length ?? 0;
    }
    async reply(request) {
        this.requests.push(request);
        const step = this.#queues.get(request.sessionKey)?.shift() ?? this.#queues.get("default")?.shift() ?? this.#fallback;
        if (step === undefined)
            throw new EmulatorModelError("script-exhausted", `ScriptedEmulatorModel has no reply for session ${JSON.stringify(request.sessionKey)} (request ${this.requests.length})`);
        return typeof step === "function" ? await step(request) : step;
    }
}
const PATH_TOKEN = /(?:^|[\s"'`(<[])((?:\.{0,2}\/)?(?:[\w@.-]+\/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s"'`)>\],:;!?]|\.(?:\s|$))/g;
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
export class RuleBasedModel {
    reply(request) {
        const last = request.messages.at(-1);
        if (last?.role === "tool")
            return summarizeToolResult(request.messages, last.content[0]);
        const prompt = latestUserText(request.messages);
        const command = RUN_COMMAND.exec(prompt)?.[1];
        const shell = command === undefined ? undefined : request.tools.find((t) => SHELL_NAMES.has(t.name.toLowerCase()));
        if (command !== undefined && shell !== undefined)
            return { text: `Running ${command}.`, toolCalls: [{ name: shell.name, arguments: { command } }] };
        const write = WRITE_TEXT.exec(prompt);
        const writer = write === null ? undefined : request.tools.find((t) => WRITE_NAMES.has(t.name.toLowerCase()));
        if (write !== null && writer !== undefined) {
            const target = write[2].replace(/[.,;:!?]+$/, "");
            return {
                text: `Writing ${target}.`,
                toolCalls: [{ name: writer.name, arguments: { path: target, content: write[1] } }],
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
        return { text: `Understood: ${prompt.replace(/\s+/g, " ").trim().slice(0, 80)}` };
    }
}
function summarizeToolResult(messages, result) {
    if (result?.type !== "tool-result")
        return { text: "Done." };
    const name = findCallName(messages, result.callId) ?? "the tool";
    const text = result.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
    const firstLine = text
        .split("\n")
        .find((line) => line.trim() !== "")
        ?.trim()
        .slice(0, 120) ?? "";
    const what = result.isError ? `${name} failed` : `${name} returned`;
    return { text: firstLine === "" ? `${what} nothing.` : `${what}: "${firstLine}"` };
}
function findCallName(messages, callId) {
    for (let i = messages.length - 1; i >= 0; i -= 1) {
        const message = messages[i];
        if (message.role !== "assistant")
            continue;
        for (const block of message.content)
            if (block.type === "tool-call" && block.callId === callId)
                return block.name;
    }
    return undefined;
}
function findPath(prompt) {
    for (const match of prompt.matchAll(PATH_TOKEN))
        if (!NOT_PATHS.has(match[1].toLowerCase()))
            return match[1];
    return undefined;
}
function latestUserText(messages) {
    for (let i = messages.length - 1; i >= 0; i -= 1) {
        const message = messages[i];
        if (message.role !== "user")
            continue;
        const text = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
        if (text.trim() !== "")
            return text;
    }
    return "";
}
function hasPathProperty(tool) {
    const properties = tool.inputSchema.properties;
    return typeof properties === "object" && properties !== null && !Array.isArray(properties) && "path" in properties;
}
function findReadTool(tools) {
    return (tools.find((t) => READ_NAMES.has(t.name.toLowerCase())) ??
        tools.find((t) => hasPathProperty(t) && !MUTATING.test(t.name) && !LIST_NAMES.has(t.name.toLowerCase())));
}
/** The model a server or provider option names. */
export function resolveModel(option) {
    if (option === undefined || option === "rule-based")
        return new RuleBasedModel();
    if (typeof option === "function")
        return { reply: option };
    return option;
}
//# sourceMappingURL=models.js.map