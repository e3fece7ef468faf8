// The tools suite's hostile workspace: a temp directory holding everything a built-in tool must
// survive — a FIFO, a listening unix socket, a sparse 2 GiB file, a binary file, a Latin-1 file,
// a UTF-8 file with a BOM and CRLF line ends, a hard link and symlinks to files outside the
// workspace, a symlink loop, a deep directory chain for pathological globs, and the targets the
// race trials swap — next to an "outside" directory whose every byte must stay unchanged and
// never be shown.
// /dev/zero and /dev/null are extra allowed roots, so the tools meet devices, not a path refusal.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import {
  link,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  symlink,
  truncate,
  writeFile,
} from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";

/** Paths inside the workspace, relative to its root (what the model would pass). */
export const PATHS = {
  fifo: "pipe.fifo",
  socket: "server.sock",
  dir: "dir",
  binary: "binary.bin",
  latin1: "latin1.txt",
  bom: "bom-crlf.txt",
  huge: "huge.txt",
  hardLink: "hardlink.txt",
  linkOut: "link-out.txt",
  linkDir: "linkdir",
  linkLoop: "loop-a",
  catastrophic: "catastrophic.txt",
  deep: "deep",
  raceFile: "race.txt",
  raceDirLink: "swapdir",
  raceRealDir: "real-dir",
} as const;

/** The files whose bytes the encoding cases compare, restored before each such case. */
export type TextFixture = "binary" | "latin1" | "bom";

/** Sparse size of the huge file: 2 GiB, almost all of it a hole. */
export const HUGE_BYTES = 2 * 1024 ** 3;
/** Text lines at the start of the huge file (more than the 8 KiB a binary sniff looks at). */
export const HUGE_TEXT_LINES = 300;
/** Directory depth of the chain under `deep/` (each level `aaaa`). */
export const DEEP_LEVELS = 24;
/** The token every editable fixture holds exactly once. */
export const MARK = "MARK";

export interface HostileWorkspace {
  readonly base: string;
  /** The workspace root (a real path). */
  readonly root: string;
  /** The directory outside the workspace. */
  readonly outside: string;
  /** Appears in every outside file but the hard-linked one: an answer containing it leaked outside content. */
  readonly secret: string;
  /** Extra allowed roots: devices the tools must refuse as special files. */
  readonly allow: readonly string[];
  /** Original bytes of the encoding fixtures. */
  readonly original: Readonly<Record<TextFixture, Buffer>>;
  abs(rel: string): string;
  /** Puts the original bytes back (a successful edit or write changed them). */
  restore(name: TextFixture): Promise<void>;
  /** Every entry under the outside directory: type and bytes (or link target). */
  snapshotOutside(): Promise<ReadonlyMap<string, string>>;
  /** Frees a reader blocked opening the FIFO (a tool that hung on it), so its thread can go on. */
  unblockFifo(): Promise<void>;
  close(): Promise<void>;
}

const run = promisify(execFile);

/** Builds the workspace; `random` draws the binary fixture's bytes. */
export async function buildHostileWorkspace(random: () => number): Promise<HostileWorkspace> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "keelson-tools-")));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  const secret = `OUTSIDE-SECRET-${Math.floor(random() * 2 ** 32).toString(16)}`;
  const abs = (rel: string): string => join(root, rel);
  await mkdir(join(outside, "dir"), { recursive: true });
  await mkdir(abs(PATHS.dir), { recursive: true });
  await mkdir(abs(PATHS.raceRealDir), { recursive: true });

  await writeFile(join(outside, "secret.txt"), `${secret} ${MARK}\n`);
  // Hard-linked into the workspace: its content is the workspace's too (read and grep may show
  // it), so it carries no secret; its bytes must still never change.
  await writeFile(join(outside, "linked.txt"), `hard-linked from outside ${MARK}\n`);
  await writeFile(join(outside, "dir", "race.txt"), `${secret} dir ${MARK}\n`);
  await writeFile(join(outside, "dir", "notes.txt"), `${secret} notes\n`);

  await run("mkfifo", [abs(PATHS.fifo)]);
  const server = await listen(abs(PATHS.socket));
  await writeFile(join(abs(PATHS.dir), "inner.txt"), `inner ${MARK}\n`);

  const original: Record<TextFixture, Buffer> = {
    binary: binaryBytes(random),
    latin1: Buffer.from(`café crème naïve ${MARK} façade\nÿ end\n`, "latin1"),
    bom: Buffer.from(
      `\uFEFFline one\r\n${MARK} — ünïcödé 𝄞 here\r\nlone\rcarriage\r\nlast line without newline`,
      "utf8",
    ),
  };
  const fixturePath: Record<TextFixture, string> = { binary: PATHS.binary, latin1: PATHS.latin1, bom: PATHS.bom };
  for (const name of Object.keys(original) as TextFixture[]) await writeFile(abs(fixturePath[name]), original[name]);

  const lines = Array.from({ length: HUGE_TEXT_LINES }, (_, i) => `line ${i + 1}: text before a 2 GiB hole\n`);
  await writeFile(abs(PATHS.huge), lines.join(""));
  await truncate(abs(PATHS.huge), HUGE_BYTES);

  await link(join(outside, "linked.txt"), abs(PATHS.hardLink));
  await symlink(join(outside, "secret.txt"), abs(PATHS.linkOut));
  await symlink(join(outside, "dir"), abs(PATHS.linkDir));
  await symlink("loop-b", abs(PATHS.linkLoop));
  await symlink(PATHS.linkLoop, abs("loop-b"));
  await writeFile(abs(PATHS.catastrophic), `${"a".repeat(41)}!\n${"x".repeat(5000)}\n`);
  const deepDir = join(abs(PATHS.deep), ...Array.from({ length: DEEP_LEVELS }, () => "aaaa"));
  await mkdir(deepDir, { recursive: true });
  await writeFile(join(deepDir, "aaaa.txt"), "deep\n");

  await writeFile(abs(PATHS.raceFile), `inside race file ${MARK}\n`);
  await writeFile(join(abs(PATHS.raceRealDir), "race.txt"), `inside race dir ${MARK}\n`);
  await symlink(PATHS.raceRealDir, abs(PATHS.raceDirLink));

  return {
    base,
    root,
    outside,
    secret,
    allow: ["/dev/zero", "/dev/null"],
    original,
    abs,
    restore: (name) => writeFile(abs(fixturePath[name]), original[name]),
    snapshotOutside: () => snapshot(outside),
    unblockFifo: async () => {
      // O_NONBLOCK write open: fails with ENXIO when no reader waits, else releases it (it reads EOF).
      const handle = await open(abs(PATHS.fifo), constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
      await handle?.close();
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** 4 KiB of seeded bytes with NULs, no `M` (so MARK occurs once), and MARK in the middle. */
function binaryBytes(random: () => number): Buffer {
  const bytes = Buffer.alloc(4096);
  for (let i = 0; i < bytes.length; i++) {
    const b = Math.floor(random() * 256);
    bytes[i] = b === 0x4d ? 0 : b;
  }
  bytes[7] = 0;
  bytes.write(MARK, 2048, "latin1");
  return bytes;
}

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", reject);
    server.listen(path, () => resolve(server));
  });
}

async function snapshot(dir: string): Promise<ReadonlyMap<string, string>> {
  const entries = new Map<string, string>();
  const visit = async (current: string): Promise<void> => {
    for (const name of (await readdir(current)).sort()) {
      const path = join(current, name);
      const rel = relative(dir, path);
      const info = await lstat(path);
      if (info.isSymbolicLink()) entries.set(rel, `link → ${await readlink(path)}`);
      else if (info.isDirectory()) {
        entries.set(rel, "dir");
        await visit(path);
      } else
        entries.set(
          rel,
          `file ${createHash("sha256")
            .update(await readFile(path))
            .digest("hex")} mode ${info.mode.toString(8)}`,
        );
    }
  };
  await visit(dir);
  return entries;
}
