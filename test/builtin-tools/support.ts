// Builders for the built-in tool tests: a temp workspace on disk (mkdtemp, real path, removed
// after each test), files put into it, and a tools harness with every built-in tool registered
// over that workspace, driven through executeToolCall.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterThisTest } from "../support/test-cleanups.js";
import { type BuiltinToolName, builtinToolDefinitions, Workspace } from "../../src/builtin-tools/index.js";
import type { SandboxMode } from "../../src/sandbox/index.js";
import { type Harness, harness } from "../tools/support.js";

/** A fresh empty directory (real path), removed after the test. */
export async function tempDir(label = "ws"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), `keelson-builtin-${label}-`)));
  afterThisTest(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `text` at `root/rel`, creating directories; returns the absolute path. */
export async function put(root: string, rel: string, text: string | Buffer = ""): Promise<string> {
  const path = join(root, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

export interface ToolRig extends Harness {
  readonly root: string;
  readonly workspace: Workspace;
}

/**
 * A temp workspace with the built-in tools registered (no permission gate: that is the plugin's).
 * `bash` runs unsandboxed unless `sandbox` says otherwise: these tests are about the tools, and
 * the sandbox's own tests (test/sandbox, test/reliability/sandbox.test.ts) cover it on and off.
 */
export async function toolRig(
  options: { allow?: string[]; outputCap?: number; tools?: BuiltinToolName[]; sandbox?: SandboxMode } = {},
): Promise<ToolRig> {
  const root = await tempDir();
  const workspace = new Workspace({ root, ...(options.allow ? { allow: options.allow } : {}) });
  const h = harness();
  for (const tool of builtinToolDefinitions(
    { workspace, sandbox: options.sandbox ?? "off", ...(options.outputCap ? { outputCap: options.outputCap } : {}) },
    options.tools,
  ))
    h.registry.register(tool);
  return { ...h, root, workspace };
}

export { textOf } from "../tools/support.js";

/** `promise`, or a rejection after `seconds`: only a hang guard, never a timing assertion. */
export async function settlesWithin<T>(promise: Promise<T>, seconds = 5): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}
