import type { Command } from "commander";
export declare function registerFork(program: Command): void;
