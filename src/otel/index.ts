// OpenTelemetry spans for an agent, per the GenAI semantic conventions: `invoke_agent` per turn,
// `chat {model}` per provider request, `execute_tool {name}` per tool call — each leading back to
// the log through keelson.session.id and keelson.seq.start/end. `@opentelemetry/api` is an
// optional peer dependency, loaded only when `otelTracing()` is called.
export { otelTracing } from "./plugin.js";
export { ATTR as OTEL_ATTRIBUTES, OtelError, type OtelTracingOptions } from "./types.js";
