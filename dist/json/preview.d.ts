/** JSON of `value` cut to `max` characters with "..." (or its type name when it has no JSON). */
export declare function previewJson(value: unknown, max?: number): string;
