// CliError: a failure the user caused or can fix (bad id, bad model string, missing key). The
// entry point prints its message as one line on stderr and exits with `exitCode`; a stack trace
// is printed only with `--debug`. Errors of other layers that carry a stable `code` are shown
// the same way (see `describeError`).
import { KeelsonError } from "../errors/index.js";
export class CliError extends KeelsonError {
    exitCode;
    constructor(message, exitCode = 2) {
        super("cli", message);
        this.exitCode = exitCode;
    }
}
/** One line for any error: `code: message` for layer errors, the message for CliErrors. */
export function describeError(error) {
    if (error instanceof CliError)
        return error.message;
    if (error instanceof Error) {
        const code = error.code;
        const text = error.message.split("\n")[0] ?? "";
        return typeof code === "string" ? `${code}: ${text}` : text;
    }
    return String(error);
}
//# sourceMappingURL=errors.js.map