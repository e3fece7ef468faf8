// The modes and flags of what the JSONL store writes and opens. A log holds every prompt, tool
// result and file the agent read, so it is private to its user: files 0600 and directories 0700
// when the store creates them (a file or directory that exists keeps its mode; the process umask
// can only narrow these). A log is opened only as the regular file in the root it names, never
// through a symbolic link placed there (O_NOFOLLOW: ELOOP, reported as `not-a-file`) — a file a
// person names on the command line may be a link (`followLinks`, read-log-file.ts).
import { constants } from "node:fs";

/** Mode of every file the store creates: a log, its lock, the listing index and journal. */
export const PRIVATE_FILE = 0o600;
/** Mode of the directories the store creates: its root (and missing parents), the index directory. */
export const PRIVATE_DIR = 0o700;
/** Opening an existing log to append (not `"a"`: appends would ignore the write position), never through a symlink. */
export const APPEND_FLAGS = constants.O_RDWR | constants.O_NOFOLLOW;
/** Opening a log to read it: never through a symlink, never blocking on a FIFO swapped in. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** Opening a log a person named outside any store's root (a CLI FILE argument): links followed. */
export const FOLLOWING_READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Whether `error` is the ELOOP of an O_NOFOLLOW open of a symbolic link. */
export const isSymlinkRefusal = (error: unknown): boolean => (error as NodeJS.ErrnoException)?.code === "ELOOP";
