import type { Command } from "commander";
export declare function registerSessions(program: Command): void;
