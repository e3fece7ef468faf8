// The command the CLI's hints print works where it runs: `keelson` when the running launcher is
// the one on the PATH, `npx keelson` inside a project that installed it, else `node <bin>`.
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { cliInvocation } from "../../src/cli/invocation.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "keelson-invocation-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function launcher(path: string): Promise<string> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, "#!/usr/bin/env node\n");
  await chmod(path, 0o755);
  return path;
}

test("the launcher on the PATH (a global install's symlink) is called `keelson`", async () => {
  const bin = await launcher(join(dir, "lib/node_modules/keelson/bin/keelson.js"));
  await mkdir(join(dir, "bin"));
  await symlink(bin, join(dir, "bin/keelson"));
  expect(cliInvocation(bin, { PATH: `/usr/bin:${join(dir, "bin")}` }, dir)).toBe("keelson");
});

test("a project's installed launcher that is not on the PATH is `npx keelson`", async () => {
  const bin = await launcher(join(dir, "app/node_modules/keelson/bin/keelson.js"));
  expect(cliInvocation(bin, { PATH: "/usr/bin" }, join(dir, "app"))).toBe("npx keelson");
});

test("a clone's launcher is `node bin/keelson.js` from the clone, an absolute path elsewhere", async () => {
  const bin = await launcher(join(dir, "clone/bin/keelson.js"));
  expect(cliInvocation(bin, { PATH: "/usr/bin" }, join(dir, "clone"))).toBe("node bin/keelson.js");
  expect(cliInvocation(bin, { PATH: "/usr/bin" }, join(dir, "elsewhere"))).toBe(`node ${bin}`);
});

test("another `keelson` on the PATH that is not the running launcher is not used", async () => {
  const bin = await launcher(join(dir, "clone/bin/keelson.js"));
  await launcher(join(dir, "other/keelson"));
  expect(cliInvocation(bin, { PATH: join(dir, "other") }, join(dir, "clone"))).toBe("node bin/keelson.js");
});
