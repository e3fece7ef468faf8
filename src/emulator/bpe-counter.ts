// BpeCounter: counts tokens under a tiktoken encoding (its published ranks and pre-tokenizer
// pattern), giving exactly what js-tiktoken's `encode(text, [], []).length` gives, at a fraction
// of its start-up. js-tiktoken's constructor base64-decodes every one of cl100k_base's 100,256
// tokens through an intermediate object into comma-joined byte strings: ~0.6 s of CPU and as
// much again in garbage collection, paid by every process that runs the emulator (each CLI run
// and test file). The emulator only needs counts, so the ranks are read here once into a table
// keyed by each token's base64 text as the ranks file spells it (standard, padded) — offsets
// into that file, nothing decoded or sliced (rank-table.ts: ~35 ms, where a Map of slices took
// 75–100 ms and decoding each token to its bytes twice that) — and each piece of text is looked up
// by the base64 of its UTF-8 bytes. Special-token text is ordinary text, as with encode's empty
// allowed/disallowed lists.
import { RankTable } from "./rank-table.js";

/** A tiktoken encoding's data, as js-tiktoken's `ranks/*` modules export it. */
export interface TiktokenRanks {
  readonly pat_str: string;
  /** Lines of `<name> <first rank> <base64 token> <base64 token> …`. */
  readonly bpe_ranks: string;
}

export class BpeCounter {
  /** Rank by the token's bytes in standard padded base64. */
  readonly #ranks: RankTable;
  readonly #pattern: RegExp;

  constructor(data: TiktokenRanks) {
    this.#ranks = readRanks(data.bpe_ranks);
    this.#pattern = new RegExp(data.pat_str, "gu");
  }

  /** The number of tokens `text` encodes to. */
  count(text: string): number {
    let total = 0;
    for (const match of text.matchAll(this.#pattern)) {
      const bytes = Buffer.from(match[0], "utf8");
      total +=
        bytes.length === 1 || this.#ranks.get(bytes.toString("base64")) !== undefined ? 1 : this.#mergedParts(bytes);
    }
    return total;
  }

  /** Byte-pair merging of one piece: the lowest-ranked adjacent pair first (the leftmost on a tie). */
  #mergedParts(bytes: Buffer): number {
    const bounds: number[] = [];
    for (let i = 0; i <= bytes.length; i++) bounds.push(i);
    while (bounds.length > 2) {
      let best = Number.POSITIVE_INFINITY;
      let at = -1;
      for (let i = 0; i + 2 < bounds.length; i++) {
        const rank = this.#ranks.get(bytes.toString("base64", bounds[i], bounds[i + 2]));
        if (rank !== undefined && rank < best) {
          best = rank;
          at = i;
        }
      }
      if (at < 0) break;
      bounds.splice(at + 1, 1);
    }
    return bounds.length - 1;
  }
}

function readRanks(lines: string): RankTable {
  let spaces = 0; // every token follows a space: a bound on their number
  for (let at = lines.indexOf(" "); at >= 0; at = lines.indexOf(" ", at + 1)) spaces++;
  const ranks = new RankTable(lines, spaces);
  const end = lines.length;
  let lineStart = 0;
  while (lineStart < end) {
    let lineEnd = lines.indexOf("\n", lineStart);
    if (lineEnd < 0) lineEnd = end;
    const nameEnd = lines.indexOf(" ", lineStart);
    const rankEnd = nameEnd < 0 ? -1 : lines.indexOf(" ", nameEnd + 1);
    if (nameEnd < 0 || rankEnd < 0 || rankEnd > lineEnd) {
      lineStart = lineEnd + 1; // blank or malformed: js-tiktoken reads no token from it either
      continue;
    }
    let rank = Number.parseInt(lines.slice(nameEnd + 1, rankEnd), 10);
    let tokenStart = rankEnd + 1;
    while (tokenStart < lineEnd) {
      let tokenEnd = lines.indexOf(" ", tokenStart);
      if (tokenEnd < 0 || tokenEnd > lineEnd) tokenEnd = lineEnd;
      ranks.add(tokenStart, tokenEnd, rank);
      rank++;
      tokenStart = tokenEnd + 1;
    }
    lineStart = lineEnd + 1;
  }
  return ranks;
}
