import type { Command } from "commander";
export declare function registerVerify(program: Command): void;
