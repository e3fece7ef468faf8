export declare function withStallTimeout<T>(source: AsyncIterable<T>, ms: number, onStall: () => void): AsyncGenerator<T>;
