// Which provider-SDK builds a `keelson` command loads. Commands that run no application code (no
// profiles module, no plugin that could hand the provider a client of its own) are the only users
// of the SDKs in their process, so the SDKs' CommonJS builds load there — about half the CPU of
// the ES modules (the Anthropic SDK: ~0.2 s less a command). Every other command keeps the ES
// modules, the build an application's own `import` gets — `worker`, `approve` / `deny` /
// `respond` and `replay` import profiles: one copy of each SDK's classes in the process.
import { preferCommonJsBuilds } from "../errors/index.js";

/** The commands that load the SDKs' CommonJS builds. */
export const OWN_CODE_ONLY_COMMANDS: ReadonlySet<string> = new Set(["run", "resume", "chat", "demo"]);

/** The SDKs switched, the Anthropic family together (a Bedrock or Vertex client and the core SDK's error classes are one copy). */
export const COMMON_JS_SDKS: readonly string[] = [
  "@anthropic-ai/sdk",
  "@anthropic-ai/bedrock-sdk",
  "@anthropic-ai/vertex-sdk",
  "openai",
  "@google/genai",
];

/** The command `argv` (process.argv) names: its first argument after the script that is not an option. */
export const commandOf = (argv: readonly string[]): string => argv.slice(2).find((arg) => !arg.startsWith("-")) ?? "";

/** Whether the command `argv` names loads the SDKs' CommonJS builds. */
export const loadsCommonJsSdks = (argv: readonly string[]): boolean => OWN_CODE_ONLY_COMMANDS.has(commandOf(argv));

/** Applies the choice for `argv`, before any SDK is loaded. */
export function chooseSdkBuilds(argv: readonly string[]): void {
  if (loadsCommonJsSdks(argv)) preferCommonJsBuilds(COMMON_JS_SDKS);
}
