import type { Command } from "commander";
export declare function registerShow(program: Command): void;
