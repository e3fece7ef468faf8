export type FrontmatterResult = {
    readonly ok: true;
    readonly data: unknown;
    readonly body: string;
} | {
    readonly ok: false;
    readonly problem: string;
};
export declare function parseFrontmatter(text: string): FrontmatterResult;
