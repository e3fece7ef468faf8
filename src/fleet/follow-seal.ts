// Sealing what followed turns send over NOTIFY (decision 0037). PostgreSQL has no privileges on
// LISTEN/NOTIFY: any login of the database can listen on a channel and notify on it. So the live
// messages of a followed turn and the announcements of followed sessions travel sealed —
// AES-256-GCM under the fleet's follow key, which `migrateFleet` makes once (random, in the
// `keelson_fleet_secret` table) and workers and clients read at start. A login that cannot read
// that table hears only ciphertext, and nothing it sends opens: a forged or altered payload is
// dropped. The channel's name is bound to each seal (as associated data), so a payload heard on one
// channel does not open on another. A sealed payload is base64 (ASCII: a frame's byte count is its
// length): a 12-byte nonce, the 16-byte tag, then the ciphertext.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { PgPool } from "../store/postgres/index.js";
import { FleetError } from "./types.js";

const ALGORITHM = "aes-256-gcm";
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The fleet's follow key (fleet schema 8; one row). */
export const FOLLOW_KEY = "SELECT follow_key FROM keelson_fleet_secret";

export class FollowSeal {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== KEY_BYTES) throw new RangeError(`a follow key is ${KEY_BYTES} bytes, not ${key.length}`);
    this.#key = Buffer.from(key);
  }

  /** `text` sealed for `channel`. */
  seal(channel: string, text: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, nonce);
    cipher.setAAD(Buffer.from(channel, "utf8"));
    const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64");
  }

  /** The text sealed for `channel` in `payload`; undefined when it is not one (forged, altered, another channel's, another key's). */
  open(channel: string, payload: string): string | undefined {
    const bytes = Buffer.from(payload, "base64");
    if (bytes.length < NONCE_BYTES + TAG_BYTES || bytes.toString("base64") !== payload) return undefined;
    try {
      const decipher = createDecipheriv(ALGORITHM, this.#key, bytes.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(channel, "utf8"));
      decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString(
        "utf8",
      );
    } catch {
      return undefined;
    }
  }
}

/** Reads the fleet's follow key (throws the driver's error: a role that may not read it gets 42501). */
export async function loadFollowSeal(pool: Pick<PgPool, "query">): Promise<FollowSeal> {
  const { rows } = await pool.query<{ follow_key: Buffer }>(FOLLOW_KEY);
  const key = rows[0]?.follow_key;
  if (key === undefined)
    throw new FleetError(
      "not-migrated",
      "the fleet has no follow key (keelson_fleet_secret is empty): run `keelson db migrate`",
    );
  return new FollowSeal(key);
}
