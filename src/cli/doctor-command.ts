// `keelson doctor`: what this machine gives Keelson — Node, the data directory, and whether the
// bash sandbox works here (src/sandbox: bubblewrap with user namespaces, checked by building the
// real sandbox once). Exit 0 when everything works, 1 when something does not (the line says
// why and what to do); `--json` prints the same as one object.
import type { Command } from "commander";
import { keelsonHome } from "../home/index.js";
import { sandboxSupport } from "../sandbox/index.js";
import { commandSummary } from "./commands.js";
import { terminalLine } from "./terminal-text.js";

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description(commandSummary("doctor"))
    .option("--json", "print the findings as one JSON object")
    .action(async (flags: { json?: boolean }) => {
      const sandbox = await sandboxSupport();
      const home = keelsonHome();
      if (flags.json === true) {
        process.stdout.write(
          `${JSON.stringify({ node: process.version, platform: `${process.platform} ${process.arch}`, home, sandbox })}\n`,
        );
      } else {
        const lines = [
          `node     ${process.version} (${process.platform} ${process.arch})`,
          `home     ${home}${process.env.KEELSON_HOME ? " ($KEELSON_HOME)" : ""}`,
          ...(sandbox.ok
            ? [
                `sandbox  works: ${sandbox.version} (${sandbox.bwrap}) — bash runs confined (--sandbox workspace-write by default)`,
              ]
            : [
                `sandbox  does not work here: ${sandbox.reason}`,
                `         fix: ${sandbox.fix}`,
                "         until then bash refuses to run commands, unless you opt out with --sandbox off",
              ]),
        ];
        process.stdout.write(`${lines.map(terminalLine).join("\n")}\n`);
      }
      process.exitCode = sandbox.ok ? 0 : 1;
    });
}
