// Keelson's version (package.json's), for `--version` and for what is keyed by it.
import { readFileSync } from "node:fs";

export const KEELSON_VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
