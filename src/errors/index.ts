// Public API of the errors layer (depends on nothing): the base class every layer's error extends,
// and the loader of optional peer dependencies with its MissingPackageError.
export { boundedMessage, errorMessage, MAX_ERROR_MESSAGE_CHARS } from "./error-message.js";
export { isKeelsonError, KeelsonError } from "./keelson-error.js";
export {
  loadOptionalPackage,
  MissingPackageError,
  type MissingPackageErrorCode,
  OPTIONAL_PACKAGES,
  packageOf,
  preferCommonJsBuilds,
  requireOptionalPackage,
} from "./optional-package.js";
