import { Command } from "commander";
/**
 * The commander program for `argv`: the command being run (or asked about with `help <name>`)
 * is loaded and registered in full; every other command is a stub with its summary, enough for
 * `--help` and for commander's "did you mean" suggestions.
 */
export declare function buildProgram(argv: readonly string[]): Promise<Command>;
