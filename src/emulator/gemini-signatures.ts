// The emulator's thought signatures: deterministic stand-ins for Gemini's opaque ones
// (`EmuGemSig` + a hash), and the check a request's signatures must pass — one the emulator
// issued, or a stand-in Google documents for histories another model made. Anything else
// (another provider's signature, a tampered one) is Gemini's 400 "Corrupted thought signature.",
// so a test sees at once when an adapter sends a signature to the wrong provider.
import { createHash } from "node:crypto";

const PREFIX = "EmuGemSig";

/** Signatures Google documents for function calls Gemini did not make. */
export const DOCUMENTED_STAND_INS: ReadonlySet<string> = new Set([
  "skip_thought_signature_validator",
  "context_engineering_is_the_way_to_go",
]);

/** A deterministic signature for `seed` (what the model "thought"). */
export function geminiSignature(seed: string): string {
  return `${PREFIX}${createHash("sha256").update(seed).digest("base64")}`;
}

/** True for a signature this emulator issued (Anthropic-wire checks refuse these as foreign). */
export function isGeminiEmulatorSignature(signature: string): boolean {
  return signature.startsWith(PREFIX);
}

/** The 400 message for a signature Gemini would refuse, or `undefined`. */
export function geminiSignatureProblem(signature: string): string | undefined {
  return isGeminiEmulatorSignature(signature) || DOCUMENTED_STAND_INS.has(signature)
    ? undefined
    : "Corrupted thought signature.";
}
