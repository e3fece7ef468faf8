// The emulator's stand-in for OpenAI's encrypted reasoning. `encrypted_content` is
// `EmuEnc1.<base64url of the reasoning text>.<tag>`, the tag a SHA-256 over a fixed server
// secret and the payload: opaque to a client, checkable by the emulator. Content it did not seal
// — another provider's signature, an edited string — is refused, as OpenAI refuses reasoning it
// cannot decrypt, so a test sees it when reasoning reaches the wrong provider.
import { createHash } from "node:crypto";

const PREFIX = "EmuEnc1.";
const SECRET = "keelson-emulator-reasoning";

const tagOf = (payload: string): string =>
  createHash("sha256").update(`${SECRET}\u0000${payload}`).digest("base64url").slice(0, 22);

/** Seals reasoning text as `encrypted_content`. Deterministic: the same text seals the same. */
export function sealReasoning(text: string): string {
  const payload = Buffer.from(text, "utf8").toString("base64url");
  return `${PREFIX}${payload}.${tagOf(payload)}`;
}

/** The reasoning text `sealed` carries, or undefined when the emulator did not seal it. */
export function openReasoning(sealed: string): string | undefined {
  if (!sealed.startsWith(PREFIX)) return undefined;
  const [payload, tag, ...rest] = sealed.slice(PREFIX.length).split(".");
  if (payload === undefined || tag === undefined || rest.length > 0 || tagOf(payload) !== tag) return undefined;
  return Buffer.from(payload, "base64url").toString("utf8");
}
