// `@opentelemetry/api`, an optional peer dependency, loaded synchronously when an otelTracing
// plugin is made (never by `import "keelson"`). The API keeps its registered providers on a
// global, so this copy and the application's (ESM or CommonJS) see the same tracer provider.
import { errorMessage } from "../errors/index.js";
import { createRequire } from "node:module";
import { OtelError } from "./types.js";

export type OtelApi = typeof import("@opentelemetry/api");

let api: OtelApi | undefined;

/** The API, or `OtelError('api-missing')` saying how to install it. */
export function loadOtelApi(): OtelApi {
  if (api !== undefined) return api;
  try {
    api = createRequire(import.meta.url)("@opentelemetry/api") as OtelApi;
  } catch (cause) {
    throw new OtelError(
      "api-missing",
      `otelTracing needs the optional peer dependency @opentelemetry/api: npm install @opentelemetry/api (${errorMessage(cause)})`,
      { cause },
    );
  }
  return api;
}
