// Where the sandbox finds bubblewrap: a bare name is looked for in the system's directories only,
// never on the PATH (found from outside: under `npx keelson` the PATH starts with the project's
// node_modules/.bin, which a sandboxed command may write; a `bwrap` planted there ran unconfined
// at the next start). One found only on the PATH is named in the refusal and never run.
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { expect, test } from "vitest";
import { sandboxSupport } from "../../src/sandbox/index.js";
import { tempDir } from "../builtin-tools/support.js";

test.skipIf(process.platform !== "linux")(
  "a bubblewrap only on the PATH (a planted node_modules/.bin/bwrap) is never run",
  async () => {
    const bin = await tempDir("planted-bin");
    const marker = join(bin, "ran-unconfined");
    const name = "keelson-test-planted-bwrap";
    writeFileSync(join(bin, name), `#!/bin/sh\necho "$@" > '${marker}'\nexit 0\n`);
    chmodSync(join(bin, name), 0o755);
    const previous = process.env.PATH;
    process.env.PATH = `${bin}${delimiter}${previous ?? ""}`;
    try {
      const support = await sandboxSupport(name);
      expect(support.ok).toBe(false);
      if (support.ok) return;
      expect(support.reason).toContain("not on the PATH");
      expect(support.reason).toContain(JSON.stringify(join(bin, name)));
      expect(support.fix).toBe(`if that is the bubblewrap you installed, name it: KEELSON_BWRAP=${join(bin, name)}`);
      expect(existsSync(marker)).toBe(false);
      // Named by path, it is the caller's choice: run (here it "works", being a fake).
      await sandboxSupport(join(bin, name));
      expect(existsSync(marker)).toBe(true);
    } finally {
      process.env.PATH = previous;
    }
  },
);
