// Running a suite's trials a few at a time: trials that spend most of their time waiting on
// child processes overlap, each with its own temp root. Results come back in trial order.

/** Runs `trial(0 .. count-1)` with at most `concurrency` in flight. */
export async function runTrials<T>(
  count: number,
  concurrency: number,
  trial: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await trial(index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  return results;
}
