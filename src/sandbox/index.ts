// Public API of the sandbox layer (imports errors, home): confining a command — a `bash` call, a
// stdio MCP server — with bubblewrap (Linux), failing closed where it cannot start.
export { bwrapArguments, type PathKind, SECCOMP_FD, STATUS_FD } from "./bwrap-args.js";
export {
  DEFAULT_HIDDEN_PATHS,
  PROTECTED_HOME_FILES,
  DEFAULT_MAX_PROCESSES,
  describeSandbox,
  isWithin,
  resolveSandbox,
  type SandboxContext,
  sandboxMode,
  sandboxOptions,
} from "./policy.js";
export { ceilingFor, sweepPidsCgroups } from "./pids-cgroup.js";
export { SECCOMP_ARCHES, seccompFilter } from "./seccomp.js";
export { type SandboxedCommand, type SandboxedProcess, spawnSandboxed } from "./spawn.js";
export { INSTALL_BWRAP, sandboxSupport } from "./support.js";
export {
  SANDBOX_MODES,
  SandboxError,
  type SandboxErrorCode,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxOptions,
  type SandboxPolicy,
  type SandboxSupport,
} from "./types.js";
