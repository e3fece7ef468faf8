// A broken property in a reliability trial: `check` throws a Violation whose message the suite
// reports as the trial's failure (anything else a trial throws is reported the same way).

export class Violation extends Error {
  override readonly name = "Violation";
}

export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Violation(message);
}
