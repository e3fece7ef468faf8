// The wire payloads the inspector shows: the reconstruct layer's, the very construction of
// `keelson requests --wire` (test/inspect pins byte equality with the CLI).
export { type Wire, WIRES, wireBody, wirePayload } from "../reconstruct/wire-payload.js";
