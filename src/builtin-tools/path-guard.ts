// The places inside a workspace the file tools keep away from, the same ones the bash sandbox
// keeps from commands — the file tools run in the host process, outside that sandbox:
//   - hidden: the sandbox's hidden list (DEFAULT_HIDDEN_PATHS, Keelson's home with its session
//     logs, and a sandbox policy's own `hidden`) — never read, listed, searched or written;
//   - protected: any `.git` (directory or file) and any `.keelson` below a workspace root, and
//     the shell start-up files and git's global configuration in HOME — read, never written:
//     git and the shell run or obey them later, unconfined.
// Paths are compared both as given (lexically) and physically (the real paths of the roots and
// of the listed places), so a symlinked HOME or workspace cannot slip past.
import { realpath } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { isWithin, PROTECTED_HOME_FILES, resolveSandbox } from "../sandbox/index.js";
import { ToolFailure } from "./types.js";

/** What a tool wants to do with a path: read (or list) it, or change it. */
export type PathAccess = "read" | "write";

/** Directory names below a workspace root that are never written, at any depth (case-insensitive). */
export const PROTECTED_NAMES: readonly string[] = Object.freeze([".git", ".keelson"]);

export interface PathGuardOptions {
  /** The workspace roots (absolute), the first the main one. */
  readonly roots: readonly string[];
  /** Paths hidden besides the default list (absolute, `~/…`, or relative to the first root). */
  readonly hidden?: readonly string[];
  /** Where `~` and Keelson's home are looked up (HOME, KEELSON_HOME, XDG_DATA_HOME). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A place, absolute, with the way messages show it (`~/.ssh`). */
interface Place {
  readonly path: string;
  readonly shown: string;
}

interface RealPlaces {
  readonly roots: readonly string[];
  readonly hidden: readonly Place[];
  readonly protectedFiles: readonly Place[];
}

export class PathGuard {
  readonly #roots: readonly string[];
  /** Hidden places, as configured; a place that holds a root is dropped (it would hide the workspace). */
  readonly hidden: readonly Place[];
  readonly protectedFiles: readonly Place[];
  #real: Promise<RealPlaces> | undefined;

  constructor(options: PathGuardOptions) {
    const [root, ...others] = options.roots;
    if (root === undefined) throw new TypeError("PathGuard: at least one root is needed");
    this.#roots = options.roots;
    const context = { root, env: options.env ?? process.env, where: "builtin-tools hidden" };
    const places = (policy: { hidden: readonly string[]; hiddenShown: readonly string[] }): Place[] =>
      policy.hidden
        .map((path, i) => ({ path, shown: policy.hiddenShown[i] ?? path }))
        .filter((place) => !others.some((other) => isWithin(place.path, other)));
    // The sandbox resolves the lists (`~`, Keelson's home) exactly as it does for bash.
    const defaults = places(resolveSandbox(undefined, context));
    const extra = options.hidden === undefined ? [] : places(resolveSandbox({ hidden: options.hidden }, context));
    this.hidden = Object.freeze(uniquePlaces([...defaults, ...extra]));
    this.protectedFiles = Object.freeze(places(resolveSandbox({ hidden: PROTECTED_HOME_FILES }, context)));
  }

  /**
   * The refusal for `absolute` — a path as given or a physical path (realpath, the readlink of a
   * descriptor) — or undefined when `access` is allowed there. Never touches the filesystem for
   * `absolute` itself, so a refusal says nothing about whether the path exists.
   */
  async refusal(absolute: string, shown: string, access: PathAccess): Promise<ToolFailure | undefined> {
    const real = await this.#realPlaces();
    const hidden = [...this.hidden, ...real.hidden].find((place) => isWithin(place.path, absolute));
    if (hidden !== undefined) return hiddenFailure(shown, hidden.shown);
    if (access === "read") return undefined;
    const name = protectedName([...this.#roots, ...real.roots], absolute);
    if (name !== undefined) return protectedNameFailure(shown, name);
    const file = [...this.protectedFiles, ...real.protectedFiles].find((place) => isWithin(place.path, absolute));
    if (file !== undefined) return protectedFileFailure(shown, file.shown);
    return undefined;
  }

  /**
   * Whether a path found while walking or listing `dir` (absolute, below `dir`) is hidden — as
   * given, or as it lies below `dir`'s real path. For `ls`, `glob` and `grep` to leave out.
   */
  async hiddenBelow(dir: string): Promise<(path: string) => boolean> {
    const real = await this.#realPlaces();
    const places = [...this.hidden, ...real.hidden].map((place) => place.path);
    const realDir = await realpath(dir).catch(() => dir);
    return (path) => {
      const physical = join(realDir, relative(dir, path));
      return places.some((place) => isWithin(place, path) || isWithin(place, physical));
    };
  }

  #realPlaces(): Promise<RealPlaces> {
    this.#real ??= (async () => ({
      roots: await Promise.all(this.#roots.map((root) => realpath(root).catch(() => root))),
      hidden: await realPlaces(this.hidden),
      protectedFiles: await realPlaces(this.protectedFiles),
    }))();
    return this.#real;
  }
}

/** `.git` or `.keelson` when a component of `absolute` below one of `roots` is one (any case). */
function protectedName(roots: readonly string[], absolute: string): string | undefined {
  for (const root of roots) {
    if (!isWithin(root, absolute)) continue;
    for (const part of relative(root, absolute).split(sep)) {
      const name = PROTECTED_NAMES.find((candidate) => candidate === part.toLowerCase());
      if (name !== undefined) return name;
    }
  }
  return undefined;
}

/** The places whose real path differs from the configured one (a symlinked HOME), as real paths. */
async function realPlaces(places: readonly Place[]): Promise<Place[]> {
  const found = await Promise.all(
    places.map(async (place) => ({ path: await deepestRealPath(place.path), shown: place.shown })),
  );
  return found.filter((place, i) => place.path !== places[i]!.path);
}

/** realpath of the deepest existing ancestor of `path`, with the missing tail appended. */
async function deepestRealPath(path: string): Promise<string> {
  const tail: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    try {
      return join(await realpath(current), ...tail.reverse());
    } catch {
      if (dirname(current) === current) return path;
      tail.push(basename(current));
    }
  }
}

/** `places` without repeats of a path (the first kept). */
function uniquePlaces(places: readonly Place[]): Place[] {
  const byPath = new Map<string, Place>();
  for (const place of places) if (!byPath.has(place.path)) byPath.set(place.path, place);
  return [...byPath.values()];
}

function hiddenFailure(shown: string, place: string): ToolFailure {
  return new ToolFailure(
    "hidden-path",
    `${shown} is inside ${place}, which Keelson hides from its tools (keys, credentials, its own session logs); it cannot be read, listed, searched or changed — the bash sandbox hides it too`,
  );
}

function protectedNameFailure(shown: string, name: string): ToolFailure {
  const why =
    name === ".git"
      ? "git runs its hooks and obeys its config (core.fsmonitor, core.hooksPath, aliases) later, outside the sandbox"
      : "it is Keelson's configuration for this workspace (the MCP servers it starts, …)";
  return new ToolFailure(
    "protected-path",
    `${shown} is inside a ${name} directory, which the file tools never change: ${why}. The bash sandbox keeps it read-only too; ask the user to make this change`,
  );
}

function protectedFileFailure(shown: string, place: string): ToolFailure {
  return new ToolFailure(
    "protected-path",
    `${shown} is ${place}, a start-up file of the user's shell or git's global configuration, which the file tools never change: it runs or is obeyed later, outside the sandbox. Ask the user to make this change`,
  );
}
