// The wire payloads the inspector shows: the reconstruct layer's, the very construction of
// `keelson requests --wire` (test/inspect pins byte equality with the CLI), for the wires the
// inspector has views for (`keelson requests --wire` knows more: responses and the local servers).
import type { Wire } from "../reconstruct/wire-payload.js";

export { type Wire, WIRES, wireBody, wirePayload } from "../reconstruct/wire-payload.js";

export type InspectedWire = "anthropic" | "openai" | "deepseek" | "gemini";
export const INSPECTED_WIRES: readonly (InspectedWire & Wire)[] = ["anthropic", "openai", "deepseek", "gemini"];
