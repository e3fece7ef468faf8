// otelTracing: the plugin that turns an agent's turns, provider requests and tool calls into
// OpenTelemetry spans (turn-spans.ts). `@opentelemetry/api` is loaded when the plugin is made —
// a clear OtelError if it is not installed — and never by `import "keelson"`.
import type { AgentPlugin } from "../loop/index.js";
import { loadOtelApi } from "./api.js";
import { TurnSpans } from "./turn-spans.js";
import type { OtelTracingOptions } from "./types.js";

/** See src/otel/README.md. Throws `OtelError('api-missing')` without `@opentelemetry/api`. */
export function otelTracing(options: OtelTracingOptions = {}): AgentPlugin {
  const api = loadOtelApi();
  const tracer = options.tracer ?? api.trace.getTracer("keelson", "0.1.0");
  return (host) => {
    const spans = new TurnSpans(api, tracer, host.agent, options);
    host.on("session/event", ({ event }) => spans.onEvent(event));
    host.on("llm/stream", ({ request }, next) => spans.around(request, next));
    return () => spans.endAll("the agent was disposed");
  };
}
