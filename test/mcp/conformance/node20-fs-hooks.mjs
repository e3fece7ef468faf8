// Module resolve hook: `fs` imported by @modelcontextprotocol/conformance resolves to the shim
// (node20-fs-shim.mjs) when this Node has no fs.globSync; every other import is untouched.
import fs from "node:fs";

const shim = new URL("./node20-fs-shim.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (
    typeof fs.globSync !== "function" &&
    (specifier === "fs" || specifier === "node:fs") &&
    context.parentURL?.includes("/@modelcontextprotocol/conformance/")
  )
    return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
