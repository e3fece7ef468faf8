import { KeelsonError } from "../errors/index.js";
export declare class CliError extends KeelsonError<"cli"> {
    readonly exitCode: number;
    constructor(message: string, exitCode?: number);
}
/** One line for any error: `code: message` for layer errors, the message for CliErrors. */
export declare function describeError(error: unknown): string;
