export declare function globToRegExp(pattern: string): RegExp;
