// `node --import ./node20-fs-register.mjs …/conformance/dist/index.js`: installs node20-fs-hooks.mjs.
import { register } from "node:module";

register("./node20-fs-hooks.mjs", import.meta.url);
