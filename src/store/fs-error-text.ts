// fsErrorText: a file-system failure as text for a StoreError message, with its errno code once.
// Node's own messages already start with the code ("ENOSPC: no space left on device, write");
// `String(error)` would add "Error: ", and prefixing the code again would say it twice. And
// `isNotFound`, the one errno test the listings make (no imports: the light listing entry loads it).

/** Whether a file-system failure is ENOENT (the file or directory does not exist). */
export const isNotFound = (error: unknown): boolean => (error as NodeJS.ErrnoException)?.code === "ENOENT";

/** `CODE: message` for a Node errno error (the code once), the message for other errors. */
export function fsErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code !== "string" || error.message.startsWith(`${code}:`)) return error.message;
  return `${code}: ${error.message}`;
}
