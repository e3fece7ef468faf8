// The secrets suite's fake provider keys and the scanner that looks for them. A key is a
// provider-style prefix plus a random body drawn from the suite's seed; a text leaks it when it
// holds the whole key, its body, any 12-character run of the body (a truncated or partly
// masked key), or the key in base64 / base64url (an encoded Authorization header).

export type KeyProvider = "anthropic" | "openai" | "deepseek";

export const KEY_ENV: Readonly<Record<KeyProvider, string>> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  deepseek: "DEEPSEEK_API_KEY",
};

const PREFIX: Readonly<Record<KeyProvider, string>> = {
  anthropic: "sk-ant-test-",
  openai: "sk-proj-test-",
  deepseek: "sk-ds-test-",
};
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** Shorter runs of a 40-character random body could occur by chance in ordinary text; 12 cannot. */
export const WINDOW = 12;

export interface FakeKey {
  readonly provider: KeyProvider;
  readonly key: string;
  /** The random part after the provider-style prefix. */
  readonly body: string;
}

export function fakeKeys(random: () => number): FakeKey[] {
  return (Object.keys(PREFIX) as KeyProvider[]).map((provider) => {
    const body = Array.from({ length: 40 }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join("");
    return { provider, key: PREFIX[provider] + body, body };
  });
}

export interface Leak {
  readonly where: string;
  readonly provider: KeyProvider;
  /** What was found: the key, its body, a run of it, or an encoding. */
  readonly form: string;
}

/** Something the suite captured: an output, a file, an error's rendering. */
export interface Exposure {
  readonly where: string;
  readonly text: string;
}

export class LeakScanner {
  readonly #needles: { provider: KeyProvider; form: string; needle: string }[] = [];

  constructor(keys: readonly FakeKey[]) {
    for (const { provider, key, body } of keys) {
      this.#needles.push({ provider, form: "key", needle: key }, { provider, form: "body", needle: body });
      this.#needles.push({ provider, form: "base64", needle: Buffer.from(key).toString("base64").slice(0, 40) });
      this.#needles.push({ provider, form: "base64url", needle: Buffer.from(key).toString("base64url").slice(0, 40) });
      for (let i = 0; i + WINDOW <= body.length; i++)
        this.#needles.push({ provider, form: `body[${i}..${i + WINDOW})`, needle: body.slice(i, i + WINDOW) });
    }
  }

  /** Every leak in `exposures` (the first form found per exposure and key). */
  scan(exposures: readonly Exposure[]): Leak[] {
    const leaks: Leak[] = [];
    for (const { where, text } of exposures) {
      const seen = new Set<KeyProvider>();
      for (const { provider, form, needle } of this.#needles) {
        if (seen.has(provider) || !text.includes(needle)) continue;
        seen.add(provider);
        leaks.push({ where, provider, form });
      }
    }
    return leaks;
  }
}
