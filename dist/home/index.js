// Public API of the home layer (depends on nothing): where Keelson keeps its data on this machine.
export { defaultSessionsDir, keelsonHome } from "./home.js";
//# sourceMappingURL=index.js.map