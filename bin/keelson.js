#!/usr/bin/env node
// The `keelson` launcher: registers tsx (Keelson ships TypeScript sources) and runs the CLI.
import { register } from "tsx/esm/api";

register();
await import(new URL("../src/cli/main.ts", import.meta.url).href);
