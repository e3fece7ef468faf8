// Safe opens for the built-in tools: a file is opened only when it is a regular file whose opened
// descriptor really lies inside the workspace. `Workspace.resolve` checks a path; a path can change
// between that check and the open (a symlink swapped in), so every open here is checked again on
// the descriptor itself, after the open, before a byte is read or written:
//   - read: open (O_NONBLOCK, so a FIFO never blocks), fstat (regular files only), then the real
//     path of the descriptor — readlink of /proc/self/fd/N — must lie inside a workspace root.
//   - rewrite (write, edit): the parent directory is opened component by component from the root,
//     each directory descriptor verified the same way, and the file is opened through
//     /proc/self/fd/<dirfd>/<name> with O_NOFOLLOW — resolved against the verified directory
//     object, like openat(2). No O_TRUNC: content is replaced through the handle after the checks.
// Every such check also refuses the hidden paths, and for a rewrite the protected ones
// (Workspace.refusalOf, path-guard.ts).
// /proc/self/fd is Linux. Elsewhere the check falls back to realpath of the path plus a dev/ino
// comparison with the descriptor: still refuses a swapped file, but a create through a swapped
// parent may leave an empty file behind before it is refused.
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { access, type FileHandle, lstat, mkdir, open, readlink, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import type { PathAccess } from "./path-guard.js";
import { ToolFailure } from "./types.js";
import { isWithin, type Workspace } from "./workspace.js";

/** An open regular file inside the workspace: the handle, its stat, and the absolute path. */
export interface OpenedFile {
  readonly handle: FileHandle;
  readonly path: string;
  readonly stat: Stats;
}

/** A file opened read-write for `write`/`edit`: regular, one link, inside the workspace. */
export interface RewritableFile extends OpenedFile {
  /** True when this open created the file (it did not exist). */
  readonly created: boolean;
}

/** The tool a rewrite is for; it names the refusals. */
export type RewriteVerb = "write" | "edit";

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const READ_FLAGS = constants.O_RDONLY | O_NONBLOCK | O_NOCTTY;
const REWRITE_FLAGS = constants.O_RDWR | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW;
const DIRECTORY_FLAGS = constants.O_RDONLY | O_DIRECTORY;

let procFd: Promise<boolean> | undefined;
/** Whether /proc/self/fd can name descriptors (Linux); checked once per process. */
function hasProcFd(): Promise<boolean> {
  procFd ??= access("/proc/self/fd").then(
    () => true,
    () => false,
  );
  return procFd;
}

/**
 * Opens `path` (model-supplied, relative to the workspace root) for reading: regular files only
 * (directories → `not-a-file`; FIFOs, devices, sockets → `not-a-regular-file`; never blocks on a
 * FIFO), and only when the opened descriptor's real path lies inside a workspace root (else
 * `outside-workspace`), checked after the open. The caller closes the handle.
 */
export async function openForRead(workspace: Workspace, path: string): Promise<OpenedFile> {
  const absolute = await workspace.resolve(path);
  // Refuse special files before opening them at all (opening a device can have effects); the
  // fstat after the open is the check that counts.
  assertRegular(await stat(absolute), path, "read");
  const handle = await open(absolute, READ_FLAGS).catch((error: unknown) => {
    throw asSpecialFileFailure(error, path) ?? error;
  });
  try {
    await assertInside(workspace, handle, absolute, path, "read");
    const info = await handle.stat();
    assertRegular(info, path, "read");
    return { handle, path: absolute, stat: info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Opens `path` read-write for `write` or `edit` without following a symlink anywhere it could
 * escape: missing parent directories are created when `create` (inside verified directories
 * only), a missing file is created when `create` (O_EXCL), and the opened file must be a regular
 * file (`not-a-file`, `not-a-regular-file`), not a symlink (`symbolic-link`), with one link
 * (`hard-link`: another name, possibly outside the workspace, would change too). Nothing is
 * truncated. The caller closes the handle.
 */
export async function openForRewrite(
  workspace: Workspace,
  path: string,
  verb: RewriteVerb,
  options: { readonly create: boolean },
): Promise<RewritableFile> {
  const absolute = await workspace.resolve(path, "write");
  if (workspace.roots.includes(absolute))
    throw new ToolFailure("not-a-file", `${path} is a directory; ${verb} needs a file path`);
  const directory = await openDirectory(workspace, dirname(absolute), options.create);
  try {
    const name = basename(absolute);
    const through = (await hasProcFd()) ? `/proc/self/fd/${directory.fd}/${name}` : absolute;
    const { handle, created } = await openEntry(through, absolute, path, verb, options.create);
    try {
      await assertInside(workspace, handle, absolute, path, "write");
      const info = await handle.stat();
      assertRegular(info, path, verb);
      if (info.nlink > 1)
        throw new ToolFailure(
          "hard-link",
          `${path} has ${info.nlink} hard links; ${verb} refuses it because changing it would also change the other names of the same file, which may lie outside the workspace`,
        );
      return { handle, path: absolute, stat: info, created };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } finally {
    await directory.close();
  }
}

/** Opens the file `through` (a /proc/self/fd path or the absolute path) with O_NOFOLLOW. */
async function openEntry(
  through: string,
  absolute: string,
  shown: string,
  verb: RewriteVerb,
  create: boolean,
): Promise<{ handle: FileHandle; created: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const existing = await lstat(through).catch(() => undefined);
    if (existing !== undefined && !existing.isSymbolicLink()) assertRegular(existing, shown, verb);
    try {
      return { handle: await open(through, REWRITE_FLAGS), created: false };
    } catch (error) {
      if (codeOf(error) !== "ENOENT" || !create || attempt > 2) throw refusalFor(error, through, absolute, shown, verb);
    }
    try {
      return {
        handle: await open(through, REWRITE_FLAGS | constants.O_CREAT | constants.O_EXCL, 0o666),
        created: true,
      };
    } catch (error) {
      // EEXIST: someone created it between the two opens; go round and open what is there.
      if (codeOf(error) !== "EEXIST") throw refusalFor(error, through, absolute, shown, verb);
    }
  }
}

/**
 * The directory `absoluteDir`, opened and verified inside the workspace. With /proc/self/fd it is
 * reached one component at a time from the root that holds it, each descriptor verified before
 * the next name is looked up (or created) in it, so nothing is ever created outside.
 */
async function openDirectory(workspace: Workspace, absoluteDir: string, create: boolean): Promise<FileHandle> {
  if (!(await hasProcFd())) {
    if (create) await mkdir(absoluteDir, { recursive: true });
    const handle = await open(absoluteDir, DIRECTORY_FLAGS);
    return verified(workspace, handle, absoluteDir, absoluteDir);
  }
  const root = workspace.roots.find((candidate) => isWithin(candidate, absoluteDir)) ?? absoluteDir;
  let current = await verified(workspace, await open(root, DIRECTORY_FLAGS), root, root);
  let reached = root;
  for (const name of relative(root, absoluteDir)
    .split(sep)
    .filter((part) => part !== "")) {
    reached = join(reached, name);
    const through = `/proc/self/fd/${current.fd}/${name}`;
    let next: FileHandle;
    try {
      next = await openChildDirectory(through, create);
    } catch (error) {
      await current.close();
      throw withPath(error, through, reached);
    }
    await current.close();
    current = await verified(workspace, next, reached, reached);
  }
  return current;
}

/** The directory `through` names, made first (in the verified parent) when missing and `create`. */
async function openChildDirectory(through: string, create: boolean): Promise<FileHandle> {
  try {
    return await open(through, DIRECTORY_FLAGS);
  } catch (error) {
    if (codeOf(error) !== "ENOENT" || !create) throw error;
  }
  await mkdir(through).catch((error: unknown) => {
    if (codeOf(error) !== "EEXIST") throw error;
  });
  return open(through, DIRECTORY_FLAGS);
}

/** `handle`, once verified inside the workspace; closed and rethrown otherwise. */
async function verified(workspace: Workspace, handle: FileHandle, absolute: string, shown: string) {
  try {
    await assertInside(workspace, handle, absolute, shown, "write");
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Refuses `handle` unless the object it is open on lies inside a workspace root, outside every
 * hidden path and — for a rewrite — outside the protected ones (path-guard.ts): readlink of
 * /proc/self/fd/N on Linux; elsewhere realpath of `absolute`, which must be the same dev/ino.
 */
async function assertInside(
  workspace: Workspace,
  handle: FileHandle,
  absolute: string,
  shown: string,
  access: PathAccess,
) {
  let real: string;
  if (await hasProcFd()) {
    real = (await readlink(`/proc/self/fd/${handle.fd}`)).replace(/ \(deleted\)$/, "");
  } else {
    real = await realpath(absolute);
    const [named, opened] = await Promise.all([stat(real), handle.stat()]);
    if (named.dev !== opened.dev || named.ino !== opened.ino)
      throw new ToolFailure("outside-workspace", `${shown} changed while it was being opened; refusing it`);
  }
  const refusal = await workspace.refusalOf(real, shown, access);
  if (refusal !== undefined) throw refusal;
}

/** Directories are `not-a-file`; FIFOs, devices and sockets `not-a-regular-file`. */
function assertRegular(info: Stats, shown: string, verb: RewriteVerb | "read"): void {
  if (info.isFile()) return;
  if (info.isDirectory())
    throw new ToolFailure(
      "not-a-file",
      verb === "read"
        ? `${shown} is not a regular file (use ls for directories)`
        : `${shown} is a directory; ${verb} needs a file path`,
    );
  throw new ToolFailure(
    "not-a-regular-file",
    `${shown} is a ${specialKind(info)}, not a regular file; ${verb} works on regular files only`,
  );
}

function specialKind(info: Stats): string {
  if (info.isFIFO()) return "named pipe (FIFO)";
  if (info.isCharacterDevice()) return "character device";
  if (info.isBlockDevice()) return "block device";
  if (info.isSocket()) return "socket";
  if (info.isSymbolicLink()) return "symbolic link";
  return "special file";
}

/** ENXIO from an open is a socket, or a device with nothing behind it. */
function asSpecialFileFailure(error: unknown, shown: string): ToolFailure | undefined {
  if (codeOf(error) !== "ENXIO") return undefined;
  return new ToolFailure("not-a-regular-file", `${shown} is a socket or device, not a regular file`);
}

/** The failure an O_NOFOLLOW open of an entry turns into, with the model's path in the message. */
function refusalFor(error: unknown, through: string, absolute: string, shown: string, verb: RewriteVerb): unknown {
  const code = codeOf(error);
  if (code === "ELOOP" || code === "EMLINK")
    return new ToolFailure(
      "symbolic-link",
      `${shown} is a symbolic link; ${verb} does not follow links (the link could be swapped to point outside the workspace) — ${verb} the file it points to instead`,
    );
  if (code === "EISDIR") return new ToolFailure("not-a-file", `${shown} is a directory; ${verb} needs a file path`);
  return asSpecialFileFailure(error, shown) ?? withPath(error, through, absolute);
}

/** A Node error whose message names `absolute` instead of the /proc path it was raised for. */
function withPath(error: unknown, through: string, absolute: string): unknown {
  if (error instanceof Error && through !== absolute && error.message.includes(through))
    error.message = error.message.replace(through, absolute);
  return error;
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

// ---- Content of a rewritable file --------------------------------------------------------------

const CHUNK_BYTES = 64 * 1024;

/**
 * The text of `file`, which must be UTF-8 text: no NUL byte (`binary-file`) and every sequence
 * valid (`not-utf8`). A rewrite of anything else would re-encode bytes it never meant to touch.
 */
export async function readUtf8Text(file: OpenedFile, shown: string, verb: RewriteVerb): Promise<string> {
  const parts: string[] = [];
  await scanUtf8Text(file, shown, verb, (text) => parts.push(text));
  return parts.join("");
}

/** Refuses `file` unless it is UTF-8 text (as `readUtf8Text`), in chunks: memory stays bounded. */
export async function assertUtf8Text(file: OpenedFile, shown: string, verb: RewriteVerb): Promise<void> {
  await scanUtf8Text(file, shown, verb, () => {});
}

async function scanUtf8Text(
  file: OpenedFile,
  shown: string,
  verb: RewriteVerb,
  onText: (text: string) => void,
): Promise<void> {
  // ignoreBOM: keep a byte-order mark in the text, so it is written back unchanged.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const buffer = Buffer.alloc(CHUNK_BYTES);
  for (let position = 0; ; ) {
    const { bytesRead } = await file.handle.read(buffer, 0, CHUNK_BYTES, position);
    const chunk = buffer.subarray(0, bytesRead);
    if (chunk.includes(0))
      throw new ToolFailure(
        "binary-file",
        `${shown} looks binary (it contains NUL bytes); ${verb} changes text files only and refuses to rewrite it`,
      );
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: bytesRead > 0 });
    } catch {
      throw new ToolFailure(
        "not-utf8",
        `${shown} is not valid UTF-8 text (another encoding, or binary); ${verb} refuses it because rewriting would change bytes it was not asked to change`,
      );
    }
    onText(text);
    if (bytesRead === 0) return;
    position += bytesRead;
  }
}

/** Replaces the whole content of `handle` with `bytes`: write from 0, truncate, datasync. */
export async function replaceContent(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
  }
  await handle.truncate(bytes.length);
  await handle.datasync();
}
