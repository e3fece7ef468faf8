// Waits for a condition the test cannot be told about (another process, a database), polling
// every 10 ms; a deadline (default 30 s) turns a stuck wait into a failure naming what it awaited.
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
