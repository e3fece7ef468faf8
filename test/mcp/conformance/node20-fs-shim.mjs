// Node 20 has no fs.globSync (Node 22 does); the conformance CLI imports it for a subcommand the
// tests never run. conformance.test.ts bundles that package with its `fs` import pointed here:
// importing works, calling throws.
export * from "node:fs";
import fs from "node:fs";
export default fs;
export function globSync() {
  throw new Error("fs.globSync is not available on this Node version (the conformance suite's Node 20 shim)");
}
