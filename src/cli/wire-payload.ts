// `keelson requests --wire`'s payloads: the reconstruct layer's (one construction for the CLI and
// the inspector; loaded lazily by the commands that need it).
export { providerRequestOf, type Wire, wireBody, wirePayload } from "../reconstruct/wire-payload.js";
