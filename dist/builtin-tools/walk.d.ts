export declare const SKIPPED_DIRECTORIES: ReadonlySet<string>;
export interface WalkedFile {
    readonly path: string;
    /** `/`-separated, relative to the walk's start. */
    readonly relative: string;
}
/** Every regular file below `dir`, in sorted order; unreadable directories are skipped. */
export declare function walkFiles(dir: string, signal?: AbortSignal, prefix?: string): AsyncGenerator<WalkedFile>;
