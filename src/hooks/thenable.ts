// Whether a value returned by user code (a listener, a tool) is a promise or promise-like: code
// that runs such values on every step waits only for those, and goes on at once for the rest.

export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null &&
  (typeof value === "object" || typeof value === "function") &&
  typeof (value as { then?: unknown }).then === "function";
