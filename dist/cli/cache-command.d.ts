import type { Command } from "commander";
export declare function registerCache(program: Command): void;
