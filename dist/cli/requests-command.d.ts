import { type Command } from "commander";
export declare function registerRequests(program: Command): void;
