// The secret that seals `keelson sessions`' kept listings (sessions-listing.ts): 32 random bytes,
// hex, in `$KEELSON_HOME/listing.key`, created once with mode 0600. A kept listing is printed as
// it is, without escaping again, so its seal must be one only this user can compute: a listing
// planted in a sessions directory that others can write (`--store /srv/shared/sessions`) — with
// raw escape sequences and a digest anyone could recompute — is refused and rendered in full.
// A key that cannot be created or read, or that another user could read or write (not ours, or
// group/other permission bits set), is not used: every listing is rendered in full, nothing fails.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import { keelsonHome } from "../home/index.js";

const KEY_FILE = "listing.key";
const KEY_HEX = /^[0-9a-f]{64}$/;

/**
 * The sealing key of this user's kept listings, or undefined (keep none). Made (home included)
 * only with `create` — when a listing is about to be kept: reading one never writes anything.
 */
export async function listingKey({
  home = keelsonHome(),
  create = false,
}: {
  readonly home?: string;
  readonly create?: boolean;
} = {}): Promise<Buffer | undefined> {
  const file = join(home, KEY_FILE);
  try {
    return (await readKey(file)) ?? (create ? await createKey(home, file) : undefined);
  } catch {
    return undefined;
  }
}

/** The key in `file`; undefined when there is none yet; throws when it is unusable. */
async function readKey(file: string): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const info = await handle.stat();
    const ours = process.getuid === undefined || info.uid === process.getuid();
    if (!info.isFile() || !ours || (info.mode & 0o077) !== 0) throw new Error(`${file}: not a private key file`);
    const text = (await handle.readFile({ encoding: "utf8" })).trim();
    if (!KEY_HEX.test(text)) throw new Error(`${file}: not a key`);
    return Buffer.from(text, "hex");
  } finally {
    await handle.close();
  }
}

/** A new key in `file` (exclusive create: when two listings race, the loser reads the winner's). */
async function createKey(home: string, file: string): Promise<Buffer | undefined> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readKey(file);
    throw error;
  }
  try {
    await handle.writeFile(`${key.toString("hex")}\n`);
  } finally {
    await handle.close();
  }
  return key;
}
