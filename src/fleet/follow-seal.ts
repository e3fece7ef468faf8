// Sealing what followed turns send over NOTIFY (decision 0037). PostgreSQL has no privileges on
// LISTEN/NOTIFY: any login of the database can listen on a channel and notify on it. So the live
// messages of a followed turn and the announcements of followed sessions travel sealed —
// AES-256-GCM under the fleet's follow key, which `migrateFleet` makes once (random, in the
// `keelson_fleet_secret` table) and workers and clients read at start. A login that cannot read
// that table hears only ciphertext, and nothing it sends opens: a forged or altered payload is
// dropped. The channel's name is bound to each seal (as associated data), so a payload heard on one
// channel does not open on another. A sealed payload is base64 (ASCII: a frame's byte count is its
// length): a 12-byte nonce, the 16-byte tag, then the ciphertext.
//
// Rotation (`rotateFollowKey`, `keelson db rotate-follow-key`) needs no restart: a payload that
// opens under none of a seal's keys makes it read the key again (at most once per
// FOLLOW_KEY_RELOAD_MS), and the key it held before still opens what was sealed under it. The
// turn follower and the worker's announcement hearing act on the new key (turn-follower.ts,
// turn-publication.ts): the first payload sealed under the new key reaches each of them.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { PgPool } from "../store/postgres/index.js";
import { fleetDbError, openPool } from "./fleet-pool.js";
import { FleetError, type FleetStore } from "./types.js";

const ALGORITHM = "aes-256-gcm";
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** How often, at most, a seal reads the follow key again after a payload opened under none of its keys. */
export const FOLLOW_KEY_RELOAD_MS = 5_000;

/** The fleet's follow key (fleet schema 8; one row). */
export const FOLLOW_KEY = "SELECT follow_key FROM keelson_fleet_secret";
/** A new follow key in place of the old ($1: 32 random bytes); no row: the fleet is not migrated. */
const ROTATE_FOLLOW_KEY = "UPDATE keelson_fleet_secret SET follow_key = $1";

/** What a seal's reading of the key again came to (FollowSeal.reloadKey). */
export type KeyReload = "changed" | "same" | "skipped";

export class FollowSeal {
  #key: Buffer;
  /** The key before the last rotation this seal took: it still opens what was sealed under it. */
  #previous: Buffer | undefined;
  readonly #reload: (() => Promise<Uint8Array>) | undefined;
  #reloadedAt = Number.NEGATIVE_INFINITY;
  #reloading: Promise<KeyReload> | undefined;

  /** `reload` reads the fleet's key again (loadFollowSeal passes one): without it, the seal keeps its key. */
  constructor(key: Uint8Array, reload?: () => Promise<Uint8Array>) {
    this.#key = checkedKey(key);
    this.#reload = reload;
  }

  /** Takes `key` as the key to seal with, when it is a new one (the one before it still opens); whether it was new. */
  rekey(key: Uint8Array): boolean {
    const next = checkedKey(key);
    if (next.equals(this.#key)) return false;
    this.#previous = this.#key;
    this.#key = next;
    return true;
  }

  /**
   * After a payload opened under none of this seal's keys: reads the key again unless it did so
   * less than FOLLOW_KEY_RELOAD_MS ago (a forged payload costs one query at most that often).
   * Resolves with what came of it: `changed` (a new key), `same` (the key read is the one held:
   * the sender is the one behind), or `skipped` (read too recently, no way to read, or the read
   * failed — the next unopened payload after the interval tries again).
   */
  reloadKey(): Promise<KeyReload> {
    if (this.#reloading !== undefined) return this.#reloading;
    const reload = this.#reload;
    const now = performance.now();
    if (reload === undefined || now - this.#reloadedAt < FOLLOW_KEY_RELOAD_MS) return Promise.resolve("skipped");
    this.#reloadedAt = now;
    this.#reloading = reload()
      .then(
        (key): KeyReload => (this.rekey(key) ? "changed" : "same"),
        (): KeyReload => "skipped",
      )
      .finally(() => {
        this.#reloading = undefined;
      });
    return this.#reloading;
  }

  /** `text` sealed for `channel`. */
  seal(channel: string, text: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#key, nonce);
    cipher.setAAD(Buffer.from(channel, "utf8"));
    const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64");
  }

  /**
   * The text sealed for `channel` in `payload` under this seal's key or the one before it;
   * undefined when it is not one (forged, altered, another channel's, another key's).
   */
  open(channel: string, payload: string): string | undefined {
    const bytes = Buffer.from(payload, "base64");
    if (bytes.length < NONCE_BYTES + TAG_BYTES || bytes.toString("base64") !== payload) return undefined;
    const text = openWith(this.#key, channel, bytes);
    return text !== undefined || this.#previous === undefined ? text : openWith(this.#previous, channel, bytes);
  }
}

/** The text sealed for `channel` in `bytes` under `key`, or undefined. */
function openWith(key: Buffer, channel: string, bytes: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(channel, "utf8"));
    decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

function checkedKey(key: Uint8Array): Buffer {
  if (key.length !== KEY_BYTES) throw new RangeError(`a follow key is ${KEY_BYTES} bytes, not ${key.length}`);
  return Buffer.from(key);
}

const noFollowKey = (): FleetError =>
  new FleetError(
    "not-migrated",
    "the fleet has no follow key (keelson_fleet_secret is empty): run `keelson db migrate`",
  );

/** The fleet's follow key (throws the driver's error: a role that may not read it gets 42501). */
async function readFollowKey(pool: Pick<PgPool, "query">): Promise<Buffer> {
  const { rows } = await pool.query<{ follow_key: Buffer }>(FOLLOW_KEY);
  const key = rows[0]?.follow_key;
  if (key === undefined) throw noFollowKey();
  return key;
}

/** A seal under the fleet's follow key, which reads it again from `pool` when a payload does not open. */
export async function loadFollowSeal(pool: Pick<PgPool, "query">): Promise<FollowSeal> {
  return new FollowSeal(await readFollowKey(pool), () => readFollowKey(pool));
}

/**
 * Replaces the fleet's follow key (in the database at `store`: a URL, or a pool left open) with 32
 * new random bytes. Running workers and clients take the new key when they first hear a payload
 * sealed under it (FollowSeal.reloadKey): no restart, and what was sealed under the old key still
 * opens for them. Needs UPDATE on `keelson_fleet_secret` (the role that migrated has it: else
 * `FleetError('permission-denied')`); `FleetError('not-migrated')` where there is no key.
 */
export async function rotateFollowKey(store: FleetStore): Promise<void> {
  const opened = await openPool(store);
  try {
    const { rowCount } = await opened.pool.query(ROTATE_FOLLOW_KEY, [randomBytes(KEY_BYTES)]);
    if (rowCount === 0) throw noFollowKey();
  } catch (error) {
    // No keelson_fleet_secret at all (42P01): the fleet schema was never migrated here.
    if ((error as { code?: unknown } | null)?.code === "42P01") throw noFollowKey();
    throw fleetDbError(error, opened.label, "rotating the follow key");
  } finally {
    await opened.close();
  }
}
