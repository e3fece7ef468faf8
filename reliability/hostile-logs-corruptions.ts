// One entry point for every corruption kind of the hostile-logs suite: the original file's bytes
// and a spec in, the corrupted bytes and the variant's name out. Pure (no I/O, no randomness
// beyond the spec), so a trial replays exactly.
import {
  badUtf8,
  type Corrupted,
  empty,
  flip,
  foreign,
  headerOnly,
  hugeTornTail,
  truncate,
} from "./hostile-logs-bytes.js";
import type { CorruptionKind, CorruptionSpec } from "./hostile-logs-cases.js";
import {
  deepNesting,
  hugeString,
  type Lines,
  noop,
  protoKeys,
  seqDuplicate,
  seqForge,
  seqMissing,
  seqReorder,
  splitLines,
  wrongType,
} from "./hostile-logs-edits.js";
import { forgedHeaderEvent, forgedSessionHeader, typeOutOfGrammar } from "./hostile-logs-forgeries.js";

type ByteCorruption = (original: Buffer, spec: CorruptionSpec) => Corrupted;
type LineCorruption = (lines: Lines, spec: CorruptionSpec) => Corrupted;

const onLines =
  (corrupt: LineCorruption): ByteCorruption =>
  (original, spec) =>
    corrupt(splitLines(original), spec);

const CORRUPTIONS: { readonly [K in CorruptionKind]: ByteCorruption } = {
  noop: onLines(noop),
  truncate,
  flip,
  "bad-utf8": badUtf8,
  "seq-duplicate": onLines(seqDuplicate),
  "seq-missing": onLines(seqMissing),
  "seq-reorder": onLines(seqReorder),
  "seq-forge": onLines(seqForge),
  "wrong-type": onLines(wrongType),
  "proto-keys": onLines(protoKeys),
  // One variant in five is a MiB torn tail (bytes); the others edit a line.
  "huge-string": (original, spec) =>
    spec.variant % 5 === 4 ? hugeTornTail(original, spec) : onLines(hugeString)(original, spec),
  "deep-nesting": onLines(deepNesting),
  "forged-header-event": onLines(forgedHeaderEvent),
  "type-out-of-grammar": onLines(typeOutOfGrammar),
  "forged-session-header": onLines(forgedSessionHeader),
  empty,
  "header-only": headerOnly,
  foreign,
};

/** The original file (a valid, "\n"-terminated log) corrupted as `spec` says. */
export function corrupt(original: Buffer, spec: CorruptionSpec): Corrupted {
  return CORRUPTIONS[spec.kind](original, spec);
}
