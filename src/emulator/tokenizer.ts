// countTokens: a real tokenizer (cl100k_base: js-tiktoken's bundled ranks, no network, counted
// by bpe-counter.ts) made safe and cheap for the emulator. Tiktoken's BPE is quadratic in the length of one pre-tokenizer
// piece (50k × "a" takes minutes, TOOLCHAIN.md §7), so text is split at whitespace and a piece
// that could hit the slow case — longer than 200 chars, or holding a run of 64+ letters or 64+
// symbols (each such run is a single BPE piece) — is estimated as ceil(len/4) instead. The
// rest is encoded in bounded chunks. Results are memoized per string: the same message text is
// counted on every request of a session. js-tiktoken (an optional peer dependency, 22 MB installed)
// is loaded on the first count, synchronously, so importing Keelson or the emulator costs no
// tokenizer; when it is not installed, that count throws a MissingPackageError naming it.
import { requireOptionalPackage } from "../errors/index.js";
import { BpeCounter, type TiktokenRanks } from "./bpe-counter.js";

/** Whitespace-delimited pieces longer than this are estimated, never encoded. */
export const MAX_ENCODED_PIECE = 200;
const SLOW_RUN = /\p{L}{64,}|[^\s\p{L}\p{N}]{64,}/u;
const CHUNK_CHARS = 4096;
const MEMO_LIMIT = 20_000;
/** Memoized keys hold their strings; cap the characters retained, not only the entry count. */
const MEMO_CHAR_BUDGET = 32_000_000;

let encoder: BpeCounter | undefined;
const memo = new Map<string, number>();
let memoChars = 0;

/** Tokens in `text` under cl100k_base, with the slow-case guard. Deterministic; memoized. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const known = memo.get(text);
  if (known !== undefined) return known;
  const count = countUncached(text);
  if (text.length > MEMO_CHAR_BUDGET / 8) return count;
  while (memo.size >= MEMO_LIMIT || memoChars + text.length > MEMO_CHAR_BUDGET) {
    const oldest = memo.keys().next().value as string;
    memo.delete(oldest);
    memoChars -= oldest.length;
  }
  memo.set(text, count);
  memoChars += text.length;
  return count;
}

/**
 * The longest prefix of `text` that fits in `maxTokens` under the same piecewise counting
 * (pieces are kept whole; a piece that does not fit is cut by the chars/4 estimate).
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  let used = 0;
  let end = 0;
  for (const piece of pieces(text)) {
    const cost = isSlow(piece) ? estimate(piece) : encode(piece);
    if (used + cost > maxTokens) return text.slice(0, end) + piece.slice(0, Math.max(0, (maxTokens - used) * 4 - 1));
    used += cost;
    end += piece.length;
  }
  return text;
}

function countUncached(text: string): number {
  let total = 0;
  let chunk = "";
  for (const piece of pieces(text)) {
    if (isSlow(piece)) {
      total += estimate(piece);
      continue;
    }
    if (chunk.length + piece.length > CHUNK_CHARS) {
      total += encode(chunk);
      chunk = "";
    }
    chunk += piece;
  }
  return total + encode(chunk);
}

/** Leading whitespace + one non-whitespace run; a trailing whitespace run is its own piece. */
function* pieces(text: string): Generator<string> {
  const re = /\s*\S+|\s+/gy;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) yield m[0];
}

function isSlow(piece: string): boolean {
  return piece.length > MAX_ENCODED_PIECE || SLOW_RUN.test(piece);
}

function estimate(piece: string): number {
  return Math.ceil(piece.length / 4);
}

/**
 * Loads js-tiktoken now (a no-op once loaded); throws a MissingPackageError when it is not
 * installed. The HTTP emulator calls it on start, so a missing tokenizer is the caller's error
 * there, not a 500 answered to its first request.
 */
export function loadTokenizer(): void {
  tokenizer();
}

function tokenizer(): BpeCounter {
  encoder ??= loadEncoder();
  return encoder;
}

function encode(text: string): number {
  if (text.length === 0) return 0;
  // Special-token text ("<|endoftext|>") is ordinary text here, never a reason to throw.
  return tokenizer().count(text);
}

const PURPOSE = "the emulator's tokenizer (startEmulator, countTokens, `keelson cache`, `keelson demo`)";

function loadEncoder(): BpeCounter {
  const ranks = requireOptionalPackage<TiktokenRanks | { default: TiktokenRanks }>(
    "js-tiktoken/ranks/cl100k_base",
    PURPOSE,
  );
  return new BpeCounter("default" in ranks ? ranks.default : ranks);
}
