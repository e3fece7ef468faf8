export interface WorkspaceOptions {
    readonly root: string;
    /** Extra roots paths may resolve into; relative ones resolve against `root`. */
    readonly allow?: readonly string[];
}
/** True when `path` is `root` or lies below it (both absolute, normalized). */
export declare function isWithin(root: string, path: string): boolean;
export declare class Workspace {
    #private;
    readonly root: string;
    /** The root first, then the extra allowed roots. */
    readonly roots: readonly string[];
    constructor(options: WorkspaceOptions);
    /**
     * The absolute path for `path` (relative to the root). Throws a ToolFailure `outside-workspace`
     * when it lies outside every allowed root, or when an existing part of it is a symlink whose
     * target does (a dangling symlink counts as escaping: its target cannot be checked).
     */
    resolve(path: string): Promise<string>;
    /** How to show `absolute` to the model: relative to the root when inside it, else absolute. */
    display(absolute: string): string;
    describeRoots(): string;
}
