// The environment a built-in tool's subprocess gets: the parent's, minus anything that looks like
// a credential. A command the model runs (`env`, `printenv`, a script that logs its environment)
// puts what it prints into the session log and into the next request, so a provider key inherited
// from Keelson's own environment would be sent to the model. Pure: env in, env out.
import type { BuiltinToolsOptions } from "./types.js";

/** `allow`: names kept even when they look secret. `set`: values put on top, after scrubbing. */
export type ToolEnvOptions = NonNullable<BuiltinToolsOptions["env"]>;

/**
 * Names (case-insensitive) treated as secrets: `*_API_KEY`/`APIKEY`, `*_ACCESS_KEY`,
 * `*_PRIVATE_KEY`, `*_SECRET_KEY`, any other `*_KEY` (`OPENAI_KEY`), `*_TOKEN`, `*_SECRET` (and
 * `*_SECRET_*`, e.g. `AWS_SECRET_ACCESS_KEY`), `*_PASSWORD`/`*PASSWD` (`PGPASSWORD` too), `*_PWD`
 * (`MYSQL_PWD`), `*_PAT`, `*_DSN` (`SENTRY_DSN`), `*_AUTH` (`npm_config__auth`), `*_CREDENTIAL(S)`.
 * Base URLs, `KEELSON_*`, `PATH`, `HOME`, `SSH_AUTH_SOCK` are not secrets and are kept — unless
 * their value is (`isSecretValue`).
 */
const SECRET_NAME =
  /(?:API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD|_PWD|_PAT|_DSN|_AUTH|_CREDENTIALS?)$|(?:^|_)SECRET_/i;

/**
 * A URL carrying a password (`postgres://user:pw@host/db`, as `KEELSON_STORE` may hold; found from
 * outside: it reached a sandboxed command's environment under Keelson's own variable's name).
 */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

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

/** Whether a variable's value is a credential whatever its name: a URL with a password in it. */
export function isSecretValue(value: string): boolean {
  return URL_WITH_PASSWORD.test(value);
}

/**
 * `env` without its secret-looking variables (by name or by value) (those in `options.allow` are kept), then
 * `options.set` on top. Undefined values are left out. The input is never modified.
 */
export function toolEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  options: ToolEnvOptions = {},
): Record<string, string> {
  const allowed = new Set(options.allow ?? []);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && (allowed.has(name) || !(isSecretName(name) || isSecretValue(value)))) out[name] = value;
  for (const [name, value] of Object.entries(options.set ?? {})) out[name] = value;
  return out;
}
