// The message vocabulary shared by the session log (which derives messages) and, later, the
// providers (which serialize them). It depends on nothing, so neither of those layers has to
// import the other. Every message Keelson hands out is deep-frozen lossless JSON.
export {};
//# sourceMappingURL=types.js.map