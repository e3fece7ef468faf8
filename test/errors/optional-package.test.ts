// loadOptionalPackage (src/errors): an optional peer dependency loads once on first use; a missing
// one is a MissingPackageError (code `missing-package`) naming the package, the install command
// with the tested version and what needed it; other load failures pass through; the version
// table agrees with package.json's optional peer dependencies.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import {
  isKeelsonError,
  KeelsonError,
  loadOptionalPackage,
  MissingPackageError,
  type MissingPackageErrorCode,
  OPTIONAL_PACKAGES,
  packageOf,
  preferCommonJsBuilds,
} from "../../src/errors/index.js";
import * as entry from "../../src/index.js";

const REPO = resolve(import.meta.dirname, "../..");

describe("loadOptionalPackage", () => {
  test("loads an installed package once: later calls get the same module promise", async () => {
    const first = loadOptionalPackage<typeof import("js-yaml")>("js-yaml", "the test");
    const second = loadOptionalPackage<typeof import("js-yaml")>("js-yaml", "another purpose");
    expect(second).toBe(first);
    const yaml = await first;
    expect(yaml.load("a: 1")).toEqual({ a: 1 });
  });

  test("loads a subpath of a package", async () => {
    const types = await loadOptionalPackage<typeof import("@modelcontextprotocol/sdk/types.js")>(
      "@modelcontextprotocol/sdk/types.js",
      "the test",
    );
    expect(typeof types.CallToolResultSchema).toBe("object");
  });

  test("a missing package is a MissingPackageError naming the package, the install command and the purpose", async () => {
    const error = await loadOptionalPackage("keelson-no-such-package", "the frobnicator").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MissingPackageError);
    expect(error).toBeInstanceOf(KeelsonError);
    expect(isKeelsonError<MissingPackageErrorCode>(error, "missing-package")).toBe(true);
    const missing = error as MissingPackageError;
    expect(missing.name).toBe("MissingPackageError");
    expect(missing.packageName).toBe("keelson-no-such-package");
    expect(missing.purpose).toBe("the frobnicator");
    expect(missing.installCommand).toBe("npm install keelson-no-such-package");
    expect(missing.message).toBe(
      'the package "keelson-no-such-package" is not installed, and the frobnicator needs it: run `npm install keelson-no-such-package`',
    );
    expect((missing.cause as { code?: string }).code).toBe("ERR_MODULE_NOT_FOUND");
  });

  test("a missing scoped package's subpath names the package; a package in the table gets its tested version", async () => {
    // Not installed here, but in the table: a stand-in for a provider SDK the app did not add.
    const error = (await loadOptionalPackage("@keelson-test/absent/client/index.js", "the test").catch(
      (e: unknown) => e,
    )) as MissingPackageError;
    expect(error.packageName).toBe("@keelson-test/absent");
    expect(error.installCommand).toBe("npm install @keelson-test/absent");
    const sdk = new MissingPackageError("@anthropic-ai/sdk", "the Anthropic provider");
    expect(sdk.installCommand).toBe(`npm install @anthropic-ai/sdk@${OPTIONAL_PACKAGES["@anthropic-ai/sdk"]}`);
    expect(sdk.message).toContain("the Anthropic provider needs it");
  });

  test("a failed load is not cached: the next call tries again", async () => {
    const a = loadOptionalPackage("keelson-no-such-package-2", "x");
    await a.catch(() => undefined);
    const b = loadOptionalPackage("keelson-no-such-package-2", "x");
    expect(b).not.toBe(a);
    await expect(b).rejects.toBeInstanceOf(MissingPackageError);
  });

  test("a package that is installed but fails to load passes its own error through", async () => {
    // A copy of the loader beside a node_modules holding a package whose own import fails.
    const dir = await mkdtemp(join(tmpdir(), "keelson-optional-"));
    try {
      const pkg = join(dir, "node_modules", "keelson-broken");
      await mkdir(pkg, { recursive: true });
      await writeFile(
        join(pkg, "package.json"),
        JSON.stringify({ name: "keelson-broken", type: "module", main: "index.js" }),
      );
      await writeFile(join(pkg, "index.js"), 'import "keelson-broken-dependency";\n');
      await mkdir(join(dir, "loader"));
      for (const file of ["optional-package.ts", "keelson-error.ts"])
        await writeFile(join(dir, "loader", file), await readFile(join(REPO, "src/errors", file), "utf8"));
      const copy = pathToFileURL(join(dir, "loader", "optional-package.ts")).href;
      const { loadOptionalPackage: load, MissingPackageError: CopiedError } = (await import(
        /* @vite-ignore */ copy
      )) as typeof import("../../src/errors/index.js");
      const error = await load("keelson-broken", "the test").catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(CopiedError);
      expect((error as { code?: string }).code).toBe("ERR_MODULE_NOT_FOUND");
      expect((error as Error).message).toContain("'keelson-broken-dependency'");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("is exported from the package entry", () => {
    expect(entry.loadOptionalPackage).toBe(loadOptionalPackage);
    expect(entry.MissingPackageError).toBe(MissingPackageError);
  });
});

describe("packageOf", () => {
  test("drops the subpath, keeping a scope", () => {
    expect(packageOf("openai")).toBe("openai");
    expect(packageOf("js-tiktoken/lite")).toBe("js-tiktoken");
    expect(packageOf("@anthropic-ai/sdk")).toBe("@anthropic-ai/sdk");
    expect(packageOf("@modelcontextprotocol/sdk/client/index.js")).toBe("@modelcontextprotocol/sdk");
  });
});

describe("OPTIONAL_PACKAGES", () => {
  test("names each optional peer dependency with its devDependencies pin, and peerDependencies accept it", async () => {
    const manifest = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      devDependencies: Record<string, string>;
    };
    for (const [name, version] of Object.entries(OPTIONAL_PACKAGES)) {
      expect(manifest.devDependencies[name], name).toBe(version);
      expect(manifest.peerDependencies[name], name).toBe(`^${version}`);
      expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
    }
  });
});

// Names no other code loads through loadOptionalPackage (the preference is process-wide).
test("preferCommonJsBuilds: a named package loads through its CommonJS build; a missing one is still a MissingPackageError", async () => {
  preferCommonJsBuilds(["js-tiktoken", "keelson-test-no-such-package"]);
  const loaded = await loadOptionalPackage("js-tiktoken", "a test");
  expect(loaded).toBe(createRequire(import.meta.url)("js-tiktoken"));
  const missing = await loadOptionalPackage("keelson-test-no-such-package", "a test").catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(MissingPackageError);
  expect((missing as MissingPackageError).packageName).toBe("keelson-test-no-such-package");
  expect((missing as MissingPackageError).message).toContain("a test needs it");
});
