// BpeCounter against js-tiktoken itself (the oracle): the same cl100k_base count for this
// repository's sources and docs, for seeded random text drawn from every script and byte class
// the pre-tokenizer treats apart, and for the edge cases (special-token text, CR/LF runs, lone
// surrogates, NUL). Its point is start-up (a fraction of js-tiktoken's constructor): measured
// by hand, not here — tests do not time things.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import { describe, expect, test } from "vitest";
import { BpeCounter } from "../../src/emulator/bpe-counter.js";
import { mulberry32 } from "../../src/emulator/faults.js";

const oracle = new Tiktoken(cl100k);
const counter = new BpeCounter(cl100k);
const expected = (text: string) => oracle.encode(text, [], []).length;

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(ext))
    .map((f) => join(dir, f));
}

const ALPHABETS = [
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  "0123456789",
  " \t\r\n\n\n   ",
  "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
  "éèàüößñçÅØÆœ",
  "日本語のテキスト中文한국어",
  "Приветмир",
  "😀👍🏽🧑‍💻🇫🇷",
  "\u0000\u0001\u007f\u00a0\u2028\u200b",
  "'s't're've'm'll'd'S'T",
];

function randomText(random: () => number, length: number): string {
  let out = "";
  while (out.length < length) {
    const alphabet = ALPHABETS[Math.floor(random() * ALPHABETS.length)]!;
    const chars = [...alphabet];
    const run = 1 + Math.floor(random() * 12);
    for (let i = 0; i < run; i++) out += chars[Math.floor(random() * chars.length)];
  }
  return out;
}

describe("BpeCounter (cl100k_base)", () => {
  test("counts every source and doc file of this repository exactly as js-tiktoken does", () => {
    const files = [...filesUnder("src", ".ts"), ...filesUnder("docs", ".md"), "README.md"];
    expect(files.length).toBeGreaterThan(100);
    const differing = files.filter((f) => {
      const text = readFileSync(f, "utf8");
      return counter.count(text) !== expected(text);
    });
    expect(differing).toEqual([]);
  });

  test("counts 2,000 seeded random texts across scripts, digits, punctuation and whitespace exactly", () => {
    const random = mulberry32(20261204);
    const differing: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const text = randomText(random, 1 + Math.floor(random() * 120));
      if (counter.count(text) !== expected(text)) differing.push(JSON.stringify(text));
    }
    expect(differing).toEqual([]);
  });

  test("every token of the ranks file is spelled in canonical base64, the key its bytes are looked up by", () => {
    const tokens = cl100k.bpe_ranks.split("\n").flatMap((line) => line.split(" ").slice(2));
    expect(tokens.length).toBe(100_256);
    expect(tokens.filter((t) => Buffer.from(t, "base64").toString("base64") !== t)).toEqual([]);
  });

  test("edge cases: empty, special-token text, CR/LF runs, lone surrogates, one byte", () => {
    for (const text of ["", "a", "<|endoftext|>", "<|fim_prefix|>x", "\r\n\r\n  \n", "\ud800x\udfff", "\u0000", "  "]) {
      expect(counter.count(text), JSON.stringify(text)).toBe(expected(text));
    }
  });
});
