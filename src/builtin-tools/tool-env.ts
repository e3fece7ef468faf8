// The environment a built-in tool's subprocess gets: the parent's, minus anything that looks like
// a credential. A command the model runs (`env`, `printenv`, a script that logs its environment)
// puts what it prints into the session log and into the next request, so a provider key inherited
// from Keelson's own environment would be sent to the model. Pure: env in, env out.
import type { BuiltinToolsOptions } from "./types.js";

/** `allow`: names kept even when they look secret. `set`: values put on top, after scrubbing. */
export type ToolEnvOptions = NonNullable<BuiltinToolsOptions["env"]>;

/**
 * Names (case-insensitive) treated as secrets: `*_API_KEY`/`APIKEY`, `*_ACCESS_KEY`,
 * `*_PRIVATE_KEY`, `*_SECRET_KEY`, `*_TOKEN`, `*_SECRET` (and `*_SECRET_*`, e.g.
 * `AWS_SECRET_ACCESS_KEY`), `*_PASSWORD`/`*PASSWD` (`PGPASSWORD` too). Base URLs, `KEELSON_*`,
 * `PATH`, `HOME`, `SSH_AUTH_SOCK` are not secrets and are kept.
 */
const SECRET_NAME = /(?:API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET_?KEY|TOKEN|SECRET|PASSWORD|PASSWD)$|(?:^|_)SECRET_/i;

/** The provider keys Keelson itself reads: dropped by name even if the pattern above ever changes. */
export const KEELSON_SECRET_NAMES: readonly string[] = Object.freeze([
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "DEEPSEEK_API_KEY",
]);

/** Whether a variable named `name` is dropped from a tool's environment (before `allow`). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) || KEELSON_SECRET_NAMES.includes(name.toUpperCase());
}

/**
 * `env` without its secret-looking variables (those in `options.allow` are kept), then
 * `options.set` on top. Undefined values are left out. The input is never modified.
 */
export function toolEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  options: ToolEnvOptions = {},
): Record<string, string> {
  const allowed = new Set(options.allow ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && (allowed.has(name) || !isSecretName(name))) out[name] = value;
  for (const [name, value] of Object.entries(options.set ?? {})) out[name] = value;
  return out;
}
