// Catching a typed error in a test: `thrown(run, HeaderError)` returns the error `run` threw,
// failing the test if it threw nothing or something of another class.
import { expect } from "vitest";

export function thrown<E extends Error>(run: () => unknown, type: abstract new (...args: never[]) => E): E {
  let caught: unknown;
  try {
    run();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected a ${type.name}`).toBeInstanceOf(type);
  return caught as E;
}
