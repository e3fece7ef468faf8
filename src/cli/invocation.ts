// How to run `keelson` from where the user is: `keelson` when the running launcher is the one on
// the PATH (installed globally or linked), else `npx keelson` inside a project that has it
// installed, else `node <path to bin/keelson.js>` (a clone run with `npm start`), relative when
// the launcher is under the working directory. Hints the CLI prints use it, so they work as shown.
import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, isAbsolute, join, relative, sep } from "node:path";

export function cliInvocation(
  launcher: string = process.argv[1] ?? "",
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  const real = realOrSelf(launcher);
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "keelson");
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    if (realOrSelf(candidate) === real) return "keelson";
  }
  if (real.includes(`${sep}node_modules${sep}keelson${sep}`)) return "npx keelson";
  const rel = relative(cwd, real);
  return `node ${rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : real}`;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
