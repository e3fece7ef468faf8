export { defaultSessionsDir, keelsonHome } from "./home.js";
