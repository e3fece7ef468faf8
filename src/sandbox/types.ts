// Sandbox vocabulary: the modes a command can run under, the options a caller gives, the resolved
// policy (absolute paths, what is logged and what runs), whether this machine can enforce it, and
// the layer's error.
import { KeelsonError } from "../errors/index.js";

/**
 * `workspace-write`: the workspace root (and the extra `writable` paths) read-write, the rest of
 * the filesystem read-only, secret places hidden. `read-only`: the same with the workspace
 * read-only too. `off`: no sandbox — the command runs with the user's whole access.
 */
export type SandboxMode = "workspace-write" | "read-only" | "off";

export const SANDBOX_MODES: readonly SandboxMode[] = Object.freeze(["workspace-write", "read-only", "off"]);

/** `off`: a network namespace of its own (no interface but a down loopback). `on`: the host's network. */
export type SandboxNetwork = "off" | "on";

/** What a caller may say; everything is optional. A bare mode string is `{ mode }`. */
export interface SandboxOptions {
  /** Default `workspace-write`. */
  readonly mode?: SandboxMode;
  /** Default `off`: no network at all (not even a server on 127.0.0.1 of the host). */
  readonly network?: SandboxNetwork;
  /** Extra read-write paths (absolute, `~/…`, or relative to the workspace root). */
  readonly writable?: readonly string[];
  /**
   * Extra paths shown read-only as they are on the host, where the sandbox would otherwise cover
   * them: under the private `/tmp`, or a hidden path (a hidden path is then not hidden).
   */
  readonly readable?: readonly string[];
  /** The paths hidden from commands. Default `DEFAULT_HIDDEN_PATHS` plus Keelson's own home. */
  readonly hidden?: readonly string[];
  /** Processes one command may have at once before the sandbox is killed. Default 512. */
  readonly maxProcesses?: number;
  /** The bubblewrap binary. Default `$KEELSON_BWRAP`, else `bwrap` in the system directories (`/usr/bin`, … — never the PATH). Never logged. */
  readonly bwrap?: string;
}

/** The policy one sandbox runs under, resolved against a workspace: absolute paths, frozen. */
export interface SandboxPolicy {
  readonly mode: SandboxMode;
  readonly network: SandboxNetwork;
  /** The workspace root: the command's working directory; writable in `workspace-write`. */
  readonly root: string;
  /** Read-write paths besides the workspace root (absolute). */
  readonly writable: readonly string[];
  /** Read-only paths shown over what would cover them (absolute). */
  readonly readable: readonly string[];
  /** Hidden paths (absolute; a directory shows empty, a file cannot be read). */
  readonly hidden: readonly string[];
  /** How the hidden paths are shown in the policy's description: `~/.ssh` rather than `/home/me/.ssh`. */
  readonly hiddenShown: readonly string[];
  /** HOME's start-up files (`PROTECTED_HOME_FILES`, absolute): read-only where they lie in a writable path. */
  readonly protectedFiles: readonly string[];
  readonly maxProcesses: number;
  /** The bubblewrap binary to run (a path, or a name looked up in the system directories, `BWRAP_DIRS`). */
  readonly bwrap: string;
}

/** Whether this machine can run the sandbox, and if not, why and what to do. */
export type SandboxSupport =
  | { readonly ok: true; readonly mechanism: "bubblewrap"; readonly bwrap: string; readonly version: string }
  | { readonly ok: false; readonly reason: string; readonly fix: string };

export type SandboxErrorCode = "invalid-options" | "unavailable";

/** Bad sandbox options (naming the key and value), or a sandbox that cannot start here. */
export class SandboxError extends KeelsonError<SandboxErrorCode> {}
