// createAgent and the Agent handle: a thin stateful shell over runTurn. It owns the inbox,
// the turn driver (one turn at a time, turn numbers always re-derived from the log), the
// per-instance state (cached prefix, header writer), store wiring and dispose.
import { HeaderWriter } from "../header/index.js";
import { HookBus, loadPlugin } from "../hooks/index.js";
import { PromptSections } from "../prompt/index.js";
import { Session } from "../session/index.js";
import { ToolRegistry } from "../tools/index.js";
import { globalHooks, globalPrompt } from "./global.js";
import { Inbox } from "./inbox.js";
import { runTurn } from "./turn.js";
import { LoopError, } from "./types.js";
const toContent = (content) => typeof content === "string" ? [{ type: "text", text: content }] : content;
function deferred() {
    let settle;
    const promise = new Promise((resolve, reject) => {
        settle = { resolve, reject };
    });
    return { promise, settle };
}
function resolveProvider(options) {
    if (options.provider !== undefined)
        return options.provider;
    const id = options.model.includes(":") ? options.model.slice(0, options.model.indexOf(":")) : undefined;
    const provider = id === undefined ? undefined : options.providers?.[id];
    if (provider === undefined) {
        throw new LoopError("unknown-provider", `no provider for model ${JSON.stringify(options.model)}: pass \`provider\`, or \`providers\` with a key matching its "provider:" prefix`);
    }
    return provider;
}
function invariantsDefault() {
    return process.env.KEELSON_INVARIANTS === "1" || process.env.VITEST !== undefined;
}
class LoopAgent {
    session;
    provider;
    model;
    hooks;
    tools = new ToolRegistry();
    prompt = new PromptSections(globalPrompt);
    #options;
    #provider;
    #inbox = new Inbox();
    #unloads = [];
    #persistence;
    #ready;
    #context;
    #status = "idle";
    #controller;
    #driving;
    /** A cancel that arrived after work was queued but before its turn's controller existed. */
    #pendingCancel;
    #idleWaiters = [];
    constructor(options, origin) {
        this.#options = options;
        this.#provider = resolveProvider(options);
        this.provider = this.#provider;
        this.model = options.model;
        this.session = origin.session;
        this.hooks = new HookBus({
            parent: globalHooks,
            report: (error, hook) => {
                if (hook !== "agent/error")
                    this.hooks.emit("agent/error", this, error, hook);
                else
                    process.emitWarning(`agent/error listener failed: ${String(error)}`, "KeelsonHookWarning");
            },
        });
        const store = options.store;
        this.#persistence = store?.attach(this.session);
        this.#ready =
            store === undefined || origin.storeOpen
                ? Promise.resolve()
                : store.create(this.session.header, this.session.events);
        this.#ready.catch(() => undefined); // surfaced by the first turn
        this.#unloads.push(this.session.observe((event) => this.hooks.emit("session/event", this, event)));
        const system = options.system;
        if (typeof system === "string")
            this.prompt.set({ name: "system", order: 0, text: system });
        else
            for (const section of system ?? [])
                this.prompt.set(section);
        for (const tool of options.tools ?? [])
            this.tools.register(tool);
        const config = {
            model: options.model,
            ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
            ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
            ...(options.stop === undefined ? {} : { stop: options.stop }),
        };
        const cwd = options.cwd ?? this.session.header.cwd;
        this.#context = {
            agent: this,
            session: this.session,
            hooks: this.hooks,
            tools: this.tools,
            prompt: this.prompt,
            provider: this.#provider,
            initialConfig: Object.freeze(config),
            promptVars: Object.freeze({
                model: options.model,
                sessionId: this.session.id,
                cwd: cwd ?? "",
                ...options.promptVars,
            }),
            instance: { prefix: undefined, writer: new HeaderWriter(this.session), requestsSent: 0 },
            inbox: this.#inbox,
            maxSteps: options.maxSteps ?? 50,
            toolTimeoutMs: options.toolTimeoutMs,
            invariants: options.invariants ?? invariantsDefault(),
            cwd,
            persistence: this.#persistence,
            isDisposed: () => this.#status === "disposed",
            retry: options.retry ?? {},
            compaction: options.compaction,
            prefixOnResume: options.prefixOnResume ?? "recompose",
        };
        const gate = options.compaction;
        if (gate !== undefined) {
            this.#unloads.push(this.hooks.on("agent/pre-step", (agent, _turn, _step, system, prefix, signal) => gate.compactIfNeeded(agent, system, prefix, signal)));
        }
        for (const plugin of options.plugins ?? [])
            this.#unloads.push(loadPlugin(this.hooks, plugin, { agent: this }));
    }
    get status() {
        return this.#status;
    }
    send(content) {
        const { promise, settle } = deferred();
        this.#enqueue(() => this.#inbox.prompt({ content: toContent(content), source: "user", settle }), settle);
        return promise;
    }
    steer(content) {
        const { promise, settle } = deferred();
        this.#enqueue(() => this.#inbox.steer({ content: toContent(content), settle }), settle);
        return promise;
    }
    compact() {
        const { promise, settle } = deferred();
        this.#enqueue(() => this.#inbox.compact({ settle }), settle);
        return promise;
    }
    inject(content) {
        const { promise, settle } = deferred();
        this.#enqueue(() => this.#inbox.inject({ content: toContent(content), settle }), settle);
        return promise;
    }
    cancel(reason = "cancelled") {
        const cause = { kind: "cancel", reason };
        if (this.#controller !== undefined)
            this.#controller.abort(cause);
        else if (this.#driving !== undefined)
            this.#pendingCancel = cause; // the turn is about to start
    }
    whenIdle() {
        if (this.#driving === undefined && this.#inbox.empty)
            return Promise.resolve();
        return new Promise((resolve) => this.#idleWaiters.push(resolve));
    }
    async dispose() {
        if (this.#status === "disposed")
            return this.#driving;
        this.#setStatus("disposed");
        const cause = { kind: "dispose" };
        this.#controller?.abort(cause);
        this.#inbox.rejectAll(new LoopError("disposed", "the agent was disposed before this input ran"));
        await this.#driving;
        for (const unload of this.#unloads.splice(0).reverse()) {
            try {
                unload();
            }
            catch (error) {
                this.hooks.emit("agent/error", this, error, "dispose");
            }
        }
        const store = this.#options.store;
        // A session the store refused to create (locked, exists) was never opened: nothing to flush or release.
        const opened = await this.#ready.then(() => true, () => false);
        if (store !== undefined && opened) {
            await this.#persistence?.flush();
            await store.release(this.session.id);
        }
        for (const waiter of this.#idleWaiters.splice(0))
            waiter();
    }
    #enqueue(push, settle) {
        if (this.#status === "disposed") {
            settle.reject(new LoopError("disposed", "the agent is disposed"));
            return;
        }
        push();
        this.#driving ??= this.#drive();
    }
    /** Runs turns while the inbox has work; one turn at a time. */
    async #drive() {
        await Promise.resolve(); // never start a turn inside the caller's frame (e.g. a session observer)
        try {
            await this.#ready;
        }
        catch (error) {
            this.#inbox.rejectAll(error);
        }
        while (!this.#inbox.empty && this.#status !== "disposed") {
            const claim = this.#inbox.claimAll();
            const trigger = claim.prompts.length > 0
                ? "send"
                : claim.steers.length > 0
                    ? "steer"
                    : claim.compacts.length > 0
                        ? "compact"
                        : "inject";
            this.#controller = new AbortController();
            if (this.#pendingCancel !== undefined)
                this.#controller.abort(this.#pendingCancel);
            this.#pendingCancel = undefined;
            this.#setStatus("running");
            try {
                const outcome = await runTurn(this.#context, claim, trigger, this.#controller.signal);
                for (const item of [...claim.prompts, ...claim.compacts])
                    item.settle.resolve(outcome);
            }
            catch (error) {
                // runTurn contains every failure; reaching here means the log refused a closer.
                this.hooks.emit("agent/error", this, error, "turn driver");
                for (const item of [...claim.prompts, ...claim.steers, ...claim.injects, ...claim.compacts])
                    item.settle.reject(error);
            }
            finally {
                this.#controller = undefined;
            }
        }
        this.#driving = undefined;
        if (this.#status !== "disposed")
            this.#setStatus("idle");
        for (const waiter of this.#idleWaiters.splice(0))
            waiter();
    }
    #setStatus(status) {
        if (this.#status === status)
            return;
        this.#status = status;
        this.hooks.emit("agent/status", this, status);
    }
}
/** A new agent over a new session. */
export function createAgent(options) {
    validateOptions(options);
    if (options.session !== undefined)
        return new LoopAgent(options, { session: options.session, storeOpen: false });
    const session = Session.create({
        ...(options.sessionId === undefined ? {} : { id: options.sessionId }),
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    }, options.clock === undefined ? {} : { clock: options.clock });
    return new LoopAgent(options, { session, storeOpen: false });
}
/** An agent (a new loop instance) over an existing session. */
export function agentOver(options, origin) {
    validateOptions(options);
    return new LoopAgent(options, origin);
}
function validateOptions(options) {
    if (typeof options?.model !== "string" || options.model === "")
        throw new LoopError("invalid-options", "createAgent needs a `model` string");
    if (options.maxSteps !== undefined && !(Number.isSafeInteger(options.maxSteps) && options.maxSteps > 0)) {
        throw new LoopError("invalid-options", `maxSteps must be a positive integer, got ${options.maxSteps}`);
    }
}
//# sourceMappingURL=agent.js.map