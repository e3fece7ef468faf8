export declare function childPath(parent: string, key: string | number): string;
