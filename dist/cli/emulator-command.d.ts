import { type Command } from "commander";
export declare function registerEmulator(program: Command): void;
