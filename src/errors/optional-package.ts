// loadOptionalPackage: the one way Keelson loads a package an application installs only for what
// it uses (a provider SDK, `pg`, the MCP SDK, the tokenizer — optional peer dependencies,
// docs/decisions/0020). The package loads on first use, once per process (the module promise is
// cached, so later calls cost a map lookup); when it is not installed, the caller gets a
// MissingPackageError naming the package, the `npm install` command and what needed it, instead of
// Node's bare ERR_MODULE_NOT_FOUND. Any other failure (a broken install, a missing dependency of
// the package) is passed through unchanged. `requireOptionalPackage` is the synchronous twin.
import { KeelsonError } from "./keelson-error.js";

/**
 * The version Keelson is tested with, per optional peer dependency (its devDependencies pin;
 * peerDependencies accept `^` of it). A test keeps this table equal to package.json.
 */
export const OPTIONAL_PACKAGES: Readonly<Record<string, string>> = {
  "@anthropic-ai/bedrock-sdk": "1.1.2",
  "@anthropic-ai/sdk": "1.15.0",
  "@anthropic-ai/vertex-sdk": "1.1.3",
  "@google/genai": "2.32.0",
  "@modelcontextprotocol/sdk": "1.32.2",
  "js-tiktoken": "1.0.21",
  openai: "6.49.0",
  pg: "8.23.1",
};

export type MissingPackageErrorCode = "missing-package";

/** An optional peer dependency is not installed. `installCommand` is what fixes it. */
export class MissingPackageError extends KeelsonError<MissingPackageErrorCode> {
  /** The npm package name (`openai`, `@anthropic-ai/sdk`), never a subpath. */
  readonly packageName: string;
  /** `npm install <name>@<version>` (`npm install <name>` for a package not in the table). */
  readonly installCommand: string;
  /** What needed it, as the caller said (`the OpenAI provider`). */
  readonly purpose: string;

  constructor(packageName: string, purpose: string, options?: { readonly cause?: unknown }) {
    const version = OPTIONAL_PACKAGES[packageName];
    const installCommand = `npm install ${packageName}${version === undefined ? "" : `@${version}`}`;
    super(
      "missing-package",
      `the package "${packageName}" is not installed, and ${purpose} needs it: run \`${installCommand}\``,
      options,
    );
    this.packageName = packageName;
    this.installCommand = installCommand;
    this.purpose = purpose;
  }
}

const loading = new Map<string, Promise<unknown>>();
/** Packages `loadOptionalPackage` loads through their CommonJS build (`preferCommonJsBuilds`). */
const viaRequire = new Set<string>();

/**
 * For a process whose own code is the only user of these packages — the `keelson` CLI — loads
 * them through their CommonJS build (`require`) instead of `import`: Node 20 loads a package's
 * CommonJS files for about half the CPU of its ES modules (the Anthropic SDK, 272 files: ~0.24 s
 * against ~0.45 s). Never for a library: an application that imports the same package gets the
 * ES module copy, whose classes (an SDK's error types, a client it passes in) are not the
 * CommonJS copy's. Call it before the first load; names must have a `require` export.
 */
export function preferCommonJsBuilds(names: readonly string[]): void {
  for (const name of names) viaRequire.add(name);
}

/**
 * The module `name` (a package or one of its subpaths: `@modelcontextprotocol/sdk/types.js`),
 * imported on the first call and cached; `purpose` says what needs it (`the OpenAI provider`),
 * for the error. Rejects with a MissingPackageError when the package is not installed (a failed
 * load is not cached: installing it and calling again works). Type it with the module's type:
 * `loadOptionalPackage<typeof import("openai")>("openai", "the OpenAI provider")`.
 */
export function loadOptionalPackage<T>(name: string, purpose: string): Promise<T> {
  let module = loading.get(name);
  if (module === undefined) {
    // A variable specifier: bundlers leave it to run time instead of failing on a package the
    // application did not install.
    module = (
      viaRequire.has(name)
        ? new Promise((resolve) => resolve(requireOptionalPackage(name, purpose)))
        : import(/* @vite-ignore */ name)
    ).catch((error: unknown) => {
      loading.delete(name);
      if (error instanceof MissingPackageError) throw error; // a require's, named already
      throw isMissing(error, packageOf(name))
        ? new MissingPackageError(packageOf(name), purpose, { cause: error })
        : error;
    });
    loading.set(name, module);
  }
  return module as Promise<T>;
}

/**
 * `loadOptionalPackage` for a caller that must stay synchronous (the emulator's tokenizer counts
 * inside pure functions): `require`s `name` (a CommonJS entry; Node caches it) and throws the same
 * MissingPackageError when the package is not installed.
 */
export function requireOptionalPackage<T>(name: string, purpose: string): T {
  try {
    // Not a static `node:module` import: the errors layer is bundled for browsers too (keelson/serve).
    const { createRequire } = process.getBuiltinModule("node:module");
    return createRequire(import.meta.url)(name) as T;
  } catch (error) {
    throw isMissing(error, packageOf(name))
      ? new MissingPackageError(packageOf(name), purpose, { cause: error })
      : error;
  }
}

/** The package a module specifier names: `@scope/name` or `name`, without the subpath. */
export function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/** Node's "cannot find" for this package itself, not for a module some installed package imports. */
function isMissing(error: unknown, pkg: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return error.message.includes(`'${pkg}'`) || error.message.includes(`'${pkg}/`);
}
