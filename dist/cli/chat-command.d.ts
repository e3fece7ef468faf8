import type { Command } from "commander";
export declare function registerChat(program: Command): void;
