import { Command } from "commander";
export declare function buildProgram(): Command;
