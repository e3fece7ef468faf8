// A login the server refuses (SQLSTATE class 28: here a role that does not exist) is
// FleetError('permission-denied') for a fleet client, as `keelson db migrate` and the store say —
// not `unavailable`, which reads as "try again" (found from outside: the same bad credentials
// gave two codes).
import { expect, test } from "vitest";
import { FleetError, openFleetClient } from "../../src/fleet/index.js";
import { useFleetDatabase } from "./fleet-harness.js";

const database = useFleetDatabase();

test("a refused login: the client's first statement is permission-denied, naming the SQLSTATE", async () => {
  const url = new URL(database().url);
  url.username = "keelson_no_such_role";
  let error: unknown;
  const client = await openFleetClient(url.toString()); // connects on first use
  try {
    await client.enqueueTurn({ sessionId: "refused", prompt: "hi", profile: "echo" });
  } catch (caught) {
    error = caught;
  } finally {
    await client.close();
  }
  expect(error).toBeInstanceOf(FleetError);
  expect(error).toMatchObject({ code: "permission-denied", message: expect.stringMatching(/SQLSTATE 28/) });
});

test("a role granted the queue but not the follow key can queue a turn; following it is permission-denied, not a hang (decision 0037)", async () => {
  const role = `keelson_queue_only_${process.pid}`;
  await database().query(`CREATE ROLE ${role} LOGIN`);
  await database().query(
    `GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO ${role};
     GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role};
     REVOKE ALL ON keelson_fleet_secret FROM ${role}`,
  );
  const url = new URL(database().url);
  url.username = role;
  const client = await openFleetClient(url.toString());
  try {
    const id = await client.enqueueTurn({ sessionId: "queue-only", prompt: "hi", profile: "echo" });
    const error = await client
      .stream(id)
      .next()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(FleetError);
    expect(error).toMatchObject({ code: "permission-denied", message: expect.stringMatching(/follow key/) });
  } finally {
    await client.close();
    await database().query(`DROP OWNED BY ${role}; DROP ROLE ${role}`);
  }
});
