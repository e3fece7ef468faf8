// The hook bus's vocabulary: how an event map declares each hook's mode and signature, and the
// listener shape each mode takes.
export {};
//# sourceMappingURL=types.js.map