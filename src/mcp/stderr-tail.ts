// The last part of an MCP server's stderr, kept for a person (notices, connect errors) and never
// for the model. What it shows is redacted: the values of the environment Keelson passed to the
// server (`env` of its configuration), the values of this process's secret-looking variables, and
// any `NAME=value` whose name looks secret (`*_TOKEN`, `*_API_KEY`, … — the bash tool's rule) are
// replaced by `[redacted]`; control characters are escaped. Redaction runs over a buffer longer
// than what is shown by the longest secret, so a secret cut at the buffer's start never shows.
import { isSecretName, showable } from "../builtin-tools/index.js";

/** Characters kept for messages. */
const SHOWN = 500;
/** Values shorter than this are not searched for (they would redact ordinary words and digits). */
const MIN_SECRET = 4;
const SECRET_ASSIGNMENT = /\b([A-Za-z_][A-Za-z0-9_]*)=("[^"\n]*"|'[^'\n]*'|[^\s"']+)/g;

export class StderrTail {
  readonly #secrets: readonly string[];
  readonly #keep: number;
  #raw = "";

  /** `passed`: the env Keelson gives the server; `own`: this process's env (its secret-named values count too). */
  constructor(passed: Readonly<Record<string, string>> | undefined, own: NodeJS.ProcessEnv = process.env) {
    const values = new Set<string>();
    for (const value of Object.values(passed ?? {})) if (value.length >= MIN_SECRET) values.add(value);
    for (const [name, value] of Object.entries(own))
      if (value !== undefined && value.length >= MIN_SECRET && isSecretName(name)) values.add(value);
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...values].sort((a, b) => b.length - a.length);
    this.#keep = SHOWN * 4 + (this.#secrets[0]?.length ?? 0);
  }

  push(chunk: string): void {
    this.#raw = (this.#raw + chunk).slice(-this.#keep);
  }

  /** The redacted, escaped end of stderr ("" when it wrote nothing). */
  text(): string {
    let text = this.#raw;
    for (const secret of this.#secrets) text = text.split(secret).join("[redacted]");
    text = text.replace(SECRET_ASSIGNMENT, (whole, name: string) =>
      isSecretName(name) ? `${name}=[redacted]` : whole,
    );
    return showable(text.trim().slice(-SHOWN), true);
  }

  /** `; its stderr ends: …` for a message, or "". */
  suffix(): string {
    const text = this.text();
    return text === "" ? "" : `; its stderr ends: ${text}`;
  }
}
