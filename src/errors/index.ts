// Public API of the errors layer (depends on nothing): the base class every layer's error extends.
export { errorMessage } from "./error-message.js";
export { isKeelsonError, KeelsonError } from "./keelson-error.js";
