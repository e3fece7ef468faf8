// Byte-level corruptions of a stored log: cuts at any byte (mid-line, mid-UTF-8 sequence),
// flipped bytes, invalid UTF-8 sequences, empty and header-only files, foreign files, and a huge
// torn tail. Each takes the original bytes and a spec, and returns the corrupted bytes and the
// variant's name (for failure lines).
import type { CorruptionSpec } from "./hostile-logs-cases.js";

export interface Corrupted {
  readonly bytes: Buffer;
  readonly variant: string;
}

/** `n` modulo `size`, for picking among `size` things (0 when there is nothing to pick). */
export const pick = (n: number, size: number): number => (size <= 0 ? 0 : n % size);

/** A position in `0..length` (inclusive), from the start or the end. */
export const position = (spec: CorruptionSpec, length: number): number => {
  const k = spec.at % (length + 1);
  return spec.fromEnd ? length - k : k;
};

/** Byte offsets at which each line starts, and each line's length without its "\n". */
export function lineSpans(bytes: Buffer): { start: number; length: number }[] {
  const spans: { start: number; length: number }[] = [];
  let start = 0;
  for (let nl = bytes.indexOf(0x0a); nl >= 0; nl = bytes.indexOf(0x0a, start)) {
    spans.push({ start, length: nl - start });
    start = nl + 1;
  }
  return spans;
}

export function truncate(original: Buffer, spec: CorruptionSpec): Corrupted {
  const at = position(spec, original.length);
  return { bytes: original.subarray(0, at), variant: `cut at byte ${at} of ${original.length}` };
}

export function flip(original: Buffer, spec: CorruptionSpec): Corrupted {
  const at = Math.min(position(spec, original.length), original.length - 1);
  const mask = 1 + pick(spec.n, 255);
  const bytes = Buffer.from(original);
  bytes[at] = bytes[at]! ^ mask;
  return { bytes, variant: `byte ${at} ^ 0x${mask.toString(16)}` };
}

/** Sequences no UTF-8 encoder writes: lone continuations, overlongs, surrogates, > U+10FFFF, cut sequences. */
const BAD_UTF8: readonly (readonly number[])[] = [
  [0x80],
  [0xbf],
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xfe],
  [0xff],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x9a],
];

/**
 * Writes an invalid sequence into a line: inside a JSON string (where a lossy decoder would
 * quietly make it U+FFFD) or anywhere, inserted or over the bytes already there.
 */
export function badUtf8(original: Buffer, spec: CorruptionSpec): Corrupted {
  const spans = lineSpans(original);
  const line = pick(spec.line, spans.length);
  const span = spans[line]!;
  const seq = BAD_UTF8[pick(spec.n, BAD_UTF8.length)]!;
  const text = original.subarray(span.start, span.start + span.length);
  const inString = spec.variant % 2 === 0;
  let offset: number;
  if (inString) {
    // Just after the opening quote of the k-th string value (`:"`), so the JSON stays well-formed.
    const opens: number[] = [];
    for (let i = text.indexOf(':"'); i >= 0; i = text.indexOf(':"', i + 1)) opens.push(i + 2);
    offset = opens.length === 0 ? 0 : opens[pick(spec.at, opens.length)]!;
  } else {
    offset = pick(spec.at, span.length + 1);
  }
  const overwrite = Math.floor(spec.variant / 2) % 2 === 1;
  const at = span.start + offset;
  const tail = original.subarray(overwrite ? Math.min(at + seq.length, span.start + span.length) : at);
  const bytes = Buffer.concat([original.subarray(0, at), Buffer.from(seq), tail]);
  const hex = seq.map((b) => b.toString(16)).join(" ");
  return {
    bytes,
    variant: `${overwrite ? "over" : "insert"} [${hex}] ${inString ? "in a string" : "anywhere"} on line ${line + 1}`,
  };
}

const EMPTY = ["", "\n", "\n\n", "   ", "\r\n", "\t\n"];

export function empty(_original: Buffer, spec: CorruptionSpec): Corrupted {
  const text = EMPTY[pick(spec.variant, EMPTY.length)]!;
  return { bytes: Buffer.from(text), variant: JSON.stringify(text) };
}

export function headerOnly(original: Buffer, spec: CorruptionSpec): Corrupted {
  const spans = lineSpans(original);
  const headerEnd = spans[0]!.length;
  switch (pick(spec.variant, 3)) {
    case 0:
      return { bytes: original.subarray(0, headerEnd + 1), variant: "header line" };
    case 1:
      return { bytes: original.subarray(0, headerEnd), variant: "header line without its newline" };
    default: {
      const second = spans[1]?.length ?? 0;
      const cut = headerEnd + 1 + pick(spec.at, Math.max(second, 1));
      return { bytes: original.subarray(0, cut), variant: `header line and ${cut - headerEnd - 1} torn bytes` };
    }
  }
}

/** A deterministic byte stream from a number (xorshift), for random foreign content. */
function noise(seed: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed | 0 || 0x9e3779b9;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export function foreign(original: Buffer, spec: CorruptionSpec): Corrupted {
  const text = (): string => original.toString("utf8");
  const variants: readonly [string, () => Buffer][] = [
    ["random bytes", () => noise(spec.n, 1 + pick(spec.at, 4096))],
    [
      "random bytes with newlines",
      () => Buffer.from(noise(spec.n, 1 + pick(spec.at, 4096)).map((b) => (b % 7 === 0 ? 0x0a : b))),
    ],
    ["plain text", () => Buffer.from("hello world\nthis is not a session log\n")],
    ["a JSON array", () => Buffer.from("[1,2,3]\n")],
    ["JSON null", () => Buffer.from("null\n")],
    ["a JSON string", () => Buffer.from('"keelson-session"\n')],
    [
      "another JSONL format",
      () => Buffer.from('{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n'),
    ],
    [
      "another format marker",
      () => Buffer.from(text().replace('"format":"keelson-session"', '"format":"keelson-session-v2"')),
    ],
    ["format marker in an array", () => Buffer.from(`[${text().slice(0, text().indexOf("\n"))}]\n`)],
    ["a UTF-8 BOM before the log", () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), original])],
    ["the log in UTF-16LE", () => Buffer.from(text(), "utf16le")],
    ["gzip magic", () => Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), noise(spec.n, 64), Buffer.from("\n")])],
    ["NUL bytes", () => Buffer.from("\0\0\0\n\0\n")],
    ["the events without the header", () => Buffer.from(text().slice(text().indexOf("\n") + 1))],
  ];
  const [name, make] = variants[pick(spec.variant, variants.length)]!;
  return { bytes: make(), variant: name };
}

/** One MiB of filler (two, one time in four), ASCII or multi-byte. */
export function filler(spec: CorruptionSpec, multibyte: boolean): string {
  const mib = pick(spec.n, 4) === 3 ? 2 : 1;
  const unit = multibyte ? "日本語🚢é" : "abcdefgh";
  return unit.repeat(Math.ceil((mib * 1024 * 1024) / Buffer.byteLength(unit)));
}

export function hugeTornTail(original: Buffer, spec: CorruptionSpec): Corrupted {
  const tail = `{"type":"user/message","data":{"text":"${filler(spec, spec.variant % 2 === 1)}`;
  return {
    bytes: Buffer.concat([original, Buffer.from(tail)]),
    variant: `torn tail of ${Buffer.byteLength(tail)} bytes`,
  };
}
