// fsErrorText: a file-system failure as text for a StoreError message, with its errno code once.
// Node's own messages already start with the code ("ENOSPC: no space left on device, write");
// `String(error)` would add "Error: ", and prefixing the code again would say it twice.

/** `CODE: message` for a Node errno error (the code once), the message for other errors. */
export function fsErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code !== "string" || error.message.startsWith(`${code}:`)) return error.message;
  return `${code}: ${error.message}`;
}
