// Untrusted text on the terminal: file contents, tool results, model answers, prompts, paths and
// error messages that quote them can carry escape sequences (`\x1b]0;title\x07`, `\x1b[2J`, the
// 8-bit CSI U+009B) or bidi overrides that a terminal would obey. Every CLI path that prints
// such text goes through these functions, all built on one escaper — the permission prompt's
// `showable` (src/builtin-tools): C0 but tab (and newline where kept), DEL, C1, format
// characters (bidi overrides, zero-width), line/paragraph separators and lone surrogates become
// visible `\xHH` / `\u{H…}` escapes. Escaping is idempotent (an escape is printable text).
import { showable } from "../builtin-tools/permissions.js";

/**
 * Multi-line text (an answer, a transcript): newlines and tabs kept, `\r\n` read as a newline,
 * and a zero-width joiner between two characters outside ASCII, where prose needs it (👨‍👩 is
 * three characters; found from outside) — not one next to ASCII, where it only hides something.
 */
export function terminalText(text: string): string {
  return showable(text.replace(/\r\n/g, "\n"), true, true);
}

/** One line (an error message, a table cell): a newline is escaped too. */
export function terminalLine(text: string): string {
  return showable(text, false);
}

/** What `terminalLine` would change in a text of lines joined by `\n`: a character it escapes other than the newline. */
const ESCAPED_BUT_NEWLINE = /(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * Lines for a terminal, each escaped as `terminalLine` escapes it, joined by `\n`: one scan of
 * the whole text when no line needs escaping (a listing of 10,000 sessions), else line by line.
 */
export function terminalLines(lines: readonly string[]): string {
  const text = lines.join("\n");
  let newlines = 0; // a newline inside a line is escaped too: only the joins may be newlines
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) newlines++;
  const plain = newlines === Math.max(0, lines.length - 1) && !mayNeedEscaping(text);
  return plain ? text : lines.map(terminalLine).join("\n");
}

/**
 * Whether `text` holds a character `terminalLine` escapes (other than the newline): a scan of
 * character codes, with the Unicode-class test only for text that has a character from U+00AD on
 * (the first format character) — the class test over a 10,000-row listing cost ~15 ms.
 */
function mayNeedEscaping(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20) {
      if (code !== 0x0a && code !== 0x09) return true;
    } else if (code >= 0x7f) {
      if (code <= 0x9f) return true;
      if (code >= 0xad) return ESCAPED_BUT_NEWLINE.test(text.slice(i));
    }
  }
  return false;
}

/**
 * JSON text for a terminal: the characters `JSON.stringify` leaves raw that a terminal may obey
 * (DEL, C1, format characters, U+2028/9) become `\uXXXX` escapes. They can only occur inside
 * strings, so the JSON value is unchanged — only its bytes are.
 */
export function terminalJson(json: string): string {
  return json.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (char) =>
    char.length === 1 && char.charCodeAt(0) < 0x20
      ? char // JSON's own whitespace between tokens (a C0 inside a string is escaped already)
      : Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`).join(
          "",
        ),
  );
}

/**
 * Streamed text (answer deltas): escapes each chunk as `terminalText` would escape the whole,
 * holding back a trailing `\r` or high surrogate until the next chunk shows what it pairs with.
 */
export class TerminalTextStream {
  #pending = "";

  /** The escaped text to print for `chunk` (may hold back its last character). */
  push(chunk: string): string {
    const text = this.#pending + chunk;
    const last = text.charCodeAt(text.length - 1);
    const hold = text.length > 0 && (last === 0x0d || (last >= 0xd800 && last <= 0xdbff));
    this.#pending = hold ? text.slice(-1) : "";
    return terminalText(hold ? text.slice(0, -1) : text);
  }

  /** Whatever is held back, escaped (the stream ended). */
  flush(): string {
    const text = this.#pending;
    this.#pending = "";
    return terminalText(text);
  }
}
