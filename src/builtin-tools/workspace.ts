// Workspace: the directory tree the built-in tools may touch. `resolve` maps a model-supplied path
// to an absolute one and refuses anything outside the root or the extra allowed roots — lexically
// (`../`, absolute paths elsewhere) and physically (a symlink on the way whose target escapes,
// found with realpath of the deepest existing ancestor) — and anything the path guard keeps the
// tools from (path-guard.ts: hidden paths for every access, `.git`/`.keelson`/shell start-up files
// for writes), both as given and physically.
import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isWithin } from "../sandbox/index.js";
import { type PathAccess, PathGuard } from "./path-guard.js";
import { ToolFailure } from "./types.js";

export { isWithin };

export interface WorkspaceOptions {
  readonly root: string;
  /** Extra roots paths may resolve into; relative ones resolve against `root`. */
  readonly allow?: readonly string[];
  /**
   * Paths hidden from the tools besides the default list — the bash sandbox's: DEFAULT_HIDDEN_PATHS
   * and Keelson's home (absolute, `~/…`, or relative to `root`). The plugin passes its sandbox's `hidden`.
   */
  readonly hidden?: readonly string[];
  /** Where `~` and Keelson's home are looked up (HOME, KEELSON_HOME, XDG_DATA_HOME). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** How many dangling symbolic links `resolve` follows to learn where a path would lead. */
const MAX_LINK_HOPS = 40;

export class Workspace {
  readonly root: string;
  /** The root first, then the extra allowed roots. */
  readonly roots: readonly string[];
  /** What the tools keep away from inside the roots (path-guard.ts). */
  readonly guard: PathGuard;
  #realRoots: Promise<readonly string[]> | undefined;

  constructor(options: WorkspaceOptions) {
    this.root = resolve(options.root);
    this.roots = Object.freeze([this.root, ...(options.allow ?? []).map((dir) => resolve(this.root, dir))]);
    this.guard = new PathGuard({
      roots: this.roots,
      ...(options.hidden === undefined ? {} : { hidden: options.hidden }),
      ...(options.env === undefined ? {} : { env: options.env }),
    });
  }

  /**
   * The absolute path for `path` (relative to the root), for `access` (default `read`). Throws a
   * ToolFailure `outside-workspace` when it lies outside every allowed root, or when an existing
   * part of it is a symlink whose target does (a dangling symlink counts as escaping: its target
   * cannot be checked); `hidden-path` when it — or where its symlinks lead, dangling or not — is
   * a hidden path; for `write`, `protected-path` inside a `.git` or `.keelson` or at a shell
   * start-up file. Hidden and protected paths are refused before anything is looked up, so the
   * refusal does not tell whether the path exists.
   */
  async resolve(path: string, access: PathAccess = "read"): Promise<string> {
    const absolute = resolve(this.root, path);
    const lexical = await this.guard.refusal(absolute, path, access);
    if (lexical !== undefined) throw lexical;
    if (!this.roots.some((root) => isWithin(root, absolute))) {
      throw new ToolFailure(
        "outside-workspace",
        `${path} is outside the workspace (${this.describeRoots()}); paths must stay inside it`,
      );
    }
    const { real, dangling } = await physicalPath(absolute);
    if (real !== absolute) {
      const physical = await this.guard.refusal(real, `${path} (through a symbolic link)`, access);
      if (physical !== undefined) throw physical;
    }
    if (dangling !== undefined)
      throw new ToolFailure(
        "outside-workspace",
        `${path} goes through a dangling symbolic link (${dangling}); its target cannot be checked`,
      );
    if (!(await this.holdsRealPath(real))) {
      throw new ToolFailure(
        "outside-workspace",
        `${path} resolves through a symbolic link to ${real}, outside the workspace (${this.describeRoots()})`,
      );
    }
    return absolute;
  }

  /**
   * The refusal for a physical path `real` (the readlink of an opened descriptor) under `access`
   * — hidden, protected, or outside every root — or undefined: the check safe-open makes after
   * opening.
   */
  async refusalOf(real: string, shown: string, access: PathAccess): Promise<ToolFailure | undefined> {
    const guarded = await this.guard.refusal(real, shown, access);
    if (guarded !== undefined) return guarded;
    if (await this.holdsRealPath(real)) return undefined;
    return new ToolFailure(
      "outside-workspace",
      `${shown} resolves to ${real}, outside the workspace (${this.describeRoots()}); paths must stay inside it`,
    );
  }

  /** How to show `absolute` to the model: relative to the root when inside it, else absolute. */
  display(absolute: string): string {
    if (!isWithin(this.root, absolute)) return absolute;
    return relative(this.root, absolute).split(sep).join("/") || ".";
  }

  /**
   * True when `real` — a physical path (realpath, or the readlink of `/proc/self/fd/N`) — is a
   * root's real path or lies below it. The check safe-open makes on a descriptor after opening it.
   */
  async holdsRealPath(real: string): Promise<boolean> {
    const realRoots = await this.#resolveRealRoots();
    return realRoots.some((root) => isWithin(root, real));
  }

  describeRoots(): string {
    return this.roots.length === 1 ? `root ${this.root}` : `roots ${this.roots.join(", ")}`;
  }

  #resolveRealRoots(): Promise<readonly string[]> {
    this.#realRoots ??= Promise.all(this.roots.map((root) => realpath(root).catch(() => root)));
    return this.#realRoots;
  }
}

/**
 * Where `absolute` leads physically: realpath of its deepest existing ancestor with the missing
 * tail appended; a dangling symlink on the way is followed to its target (at most MAX_LINK_HOPS),
 * so the guard sees where it points, and the first one is named in `dangling`.
 */
async function physicalPath(absolute: string): Promise<{ real: string; dangling?: string }> {
  let dangling: string | undefined;
  let current = absolute;
  for (let hops = 0; hops <= MAX_LINK_HOPS; hops++) {
    const found = await deepestRealPath(current);
    const link = found.link;
    if (link === undefined) return { real: found.real, ...(dangling === undefined ? {} : { dangling }) };
    dangling ??= link;
    const target = await readlink(link).catch(() => undefined);
    if (target === undefined) break;
    const parent = await realpath(dirname(link)).catch(() => dirname(link));
    current = join(resolve(parent, target), ...found.tail);
  }
  return { real: current, dangling: dangling ?? absolute };
}

/**
 * realpath of the deepest existing ancestor of `absolute` with the missing tail appended, or the
 * dangling symlink met on the way up (and the tail below it).
 */
async function deepestRealPath(absolute: string): Promise<{ real: string; link?: string; tail: string[] }> {
  const tail: string[] = [];
  for (let current = absolute; ; current = dirname(current)) {
    try {
      return { real: join(await realpath(current), ...[...tail].reverse()), tail };
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT" && (error as { code?: unknown }).code !== "ENOTDIR")
        throw error;
      if (await isLink(current)) return { real: current, link: current, tail: [...tail].reverse() };
    }
    if (dirname(current) === current) return { real: absolute, tail: [] };
    tail.push(basename(current));
  }
}

async function isLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}
