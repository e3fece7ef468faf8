// Workspace: the directory tree the built-in tools may touch. `resolve` maps a model-supplied path
// to an absolute one and refuses anything outside the root or the extra allowed roots — lexically
// (`../`, absolute paths elsewhere) and physically (a symlink on the way whose target escapes,
// found with realpath of the deepest existing ancestor).
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isWithin } from "../sandbox/index.js";
import { ToolFailure } from "./types.js";

export { isWithin };

export interface WorkspaceOptions {
  readonly root: string;
  /** Extra roots paths may resolve into; relative ones resolve against `root`. */
  readonly allow?: readonly string[];
}

export class Workspace {
  readonly root: string;
  /** The root first, then the extra allowed roots. */
  readonly roots: readonly string[];
  #realRoots: Promise<readonly string[]> | undefined;

  constructor(options: WorkspaceOptions) {
    this.root = resolve(options.root);
    this.roots = Object.freeze([this.root, ...(options.allow ?? []).map((dir) => resolve(this.root, dir))]);
  }

  /**
   * The absolute path for `path` (relative to the root). Throws a ToolFailure `outside-workspace`
   * when it lies outside every allowed root, or when an existing part of it is a symlink whose
   * target does (a dangling symlink counts as escaping: its target cannot be checked).
   */
  async resolve(path: string): Promise<string> {
    const absolute = resolve(this.root, path);
    if (!this.roots.some((root) => isWithin(root, absolute))) {
      throw new ToolFailure(
        "outside-workspace",
        `${path} is outside the workspace (${this.describeRoots()}); paths must stay inside it`,
      );
    }
    const real = await realPathOf(absolute, path);
    if (!(await this.holdsRealPath(real))) {
      throw new ToolFailure(
        "outside-workspace",
        `${path} resolves through a symbolic link to ${real}, outside the workspace (${this.describeRoots()})`,
      );
    }
    return absolute;
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

/** realpath of the deepest existing ancestor of `absolute`, with the missing tail appended. */
async function realPathOf(absolute: string, shown: string): Promise<string> {
  const tail: string[] = [];
  for (let current = absolute; ; current = dirname(current)) {
    try {
      return join(await realpath(current), ...tail.reverse());
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT" && (error as { code?: unknown }).code !== "ENOTDIR")
        throw error;
      if (await isLink(current))
        throw new ToolFailure(
          "outside-workspace",
          `${shown} goes through a dangling symbolic link (${current}); its target cannot be checked`,
        );
    }
    if (dirname(current) === current) return absolute;
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
