import { ProviderError } from "../types.js";
import { toProviderError } from "./errors.js";
import { ChatChunkMapper } from "./stream.js";
import { toChatCompletionsParams } from "./wire.js";
const DEFAULT_STALL_TIMEOUT_MS = 60_000;
const DEEPSEEK_BASE_URL = "https://api.deepseek.com/v1";
const KEY_ENV = { openai: "OPENAI_API_KEY", deepseek: "DEEPSEEK_API_KEY" };
/** The wire mapping options a provider with `options` uses (also what `keelson requests --wire` replays). */
export function chatWireOptions(options) {
    return {
        systemRole: options.systemRole ?? "system",
        maxTokensField: options.flavor === "openai" ? "max_completion_tokens" : "max_tokens",
        promptCacheKey: options.promptCacheKey ?? options.flavor === "openai",
        reasoningReplay: options.flavor === "deepseek" ? "tool-turns" : "none",
    };
}
let sdkLoading;
/** The `openai` SDK, imported once, on first use. */
export const openaiSdk = () => (sdkLoading ??= import("openai"));
export class OpenAICompatibleProvider {
    id;
    /** The SDK client, made on the first request from `#clientOptions` (or the one given). */
    #client;
    #clientOptions;
    #wire;
    #stallTimeoutMs;
    /** Throws ProviderError('auth') naming the env var when no key is found (before any SDK is loaded). */
    constructor(options) {
        this.id = options.id ?? options.flavor;
        this.#client = options.client;
        this.#clientOptions = options.client === undefined ? clientOptions(options) : undefined;
        this.#stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
        this.#wire = chatWireOptions(options);
    }
    async *stream(request) {
        const params = toChatCompletionsParams(request, this.#wire);
        // Our own controller, so a stall can abort the request without touching the caller's signal.
        const controller = new AbortController();
        const forward = () => controller.abort(request.signal.reason);
        request.signal.addEventListener("abort", forward, { once: true });
        if (request.signal.aborted)
            forward();
        const watch = new StallWatch(this.#stallTimeoutMs, () => controller.abort());
        let sdk;
        try {
            watch.arm();
            sdk = await openaiSdk();
            this.#client ??= new sdk.default({ ...this.#clientOptions, maxRetries: 0 });
            const chunks = await this.#client.chat.completions.create(params, { signal: controller.signal });
            const mapper = new ChatChunkMapper();
            for await (const chunk of chunks) {
                watch.pause(); // the consumer's time is not the provider's silence
                for (const out of mapper.map(chunk))
                    yield out;
                watch.arm();
            }
            watch.pause();
            // An abort ends the SDK's iterator silently: tell a stall from a cancel from a clean end.
            if (watch.stalled)
                throw new ProviderError("stalled", `no data from the provider for ${this.#stallTimeoutMs} ms; the request was aborted`, { retryable: true });
            if (request.signal.aborted) {
                yield { type: "finish", reason: "aborted" };
                return;
            }
            for (const out of mapper.end())
                yield out;
        }
        catch (error) {
            throw toProviderError(error, sdk ?? (await openaiSdk()), {
                stalled: watch.stalled,
                aborted: request.signal.aborted,
                stallTimeoutMs: this.#stallTimeoutMs,
            });
        }
        finally {
            watch.pause();
            request.signal.removeEventListener("abort", forward);
            controller.abort(); // releases the connection when the consumer stopped early
        }
    }
}
function clientOptions(options) {
    if (options.flavor === "compatible") {
        if (!options.baseURL)
            throw new ProviderError("invalid-request", `OpenAICompatibleProvider(flavor "compatible") needs a baseURL (including /v1)`);
        return { apiKey: options.apiKey || "no-key", baseURL: options.baseURL };
    }
    const env = KEY_ENV[options.flavor];
    const apiKey = options.apiKey || process.env[env];
    if (!apiKey)
        throw new ProviderError("auth", `no API key for the ${options.flavor} provider: set ${env} or pass apiKey`);
    const baseURL = options.baseURL ?? (options.flavor === "deepseek" ? DEEPSEEK_BASE_URL : undefined);
    return { apiKey, ...(baseURL === undefined ? {} : { baseURL }) };
}
/** A one-shot timer re-armed around every await on the provider. */
class StallWatch {
    #ms;
    #onStall;
    #timer;
    stalled = false;
    constructor(ms, onStall) {
        this.#ms = ms;
        this.#onStall = onStall;
    }
    arm() {
        this.pause();
        this.#timer = setTimeout(() => {
            this.stalled = true;
            this.#onStall();
        }, this.#ms);
    }
    pause() {
        if (this.#timer !== undefined)
            clearTimeout(this.#timer);
        this.#timer = undefined;
    }
}
//# sourceMappingURL=adapter.js.map