// Secrets that reached a sandboxed command's environment in an outside trial under names the
// filter did not know — Keelson's own `KEELSON_STORE` holding a PostgreSQL password among them —
// are dropped now: more secret-looking names, and any value that is a URL with a password.
import { describe, expect, test } from "vitest";
import { isSecretName, isSecretValue, toolEnvironment } from "../../src/builtin-tools/index.js";

describe("a tool's environment drops what the outside trial saw leak", () => {
  test("names: *_PWD, *_PAT, *_DSN, *_AUTH, *_KEY, *_CREDENTIALS", () => {
    for (const name of [
      "MYSQL_PWD",
      "GITHUB_PAT",
      "SENTRY_DSN",
      "npm_config__auth",
      "OPENAI_KEY",
      "GOOGLE_APPLICATION_CREDENTIALS",
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of ["PWD", "OLDPWD", "KEELSON_HOME", "PATH", "SSH_AUTH_SOCK", "XAUTHORITY"])
      expect(isSecretName(name), name).toBe(false);
  });

  test("values: a URL with a password, whatever the variable's name", () => {
    expect(isSecretValue("postgres://keelson:s3cret@db.internal:5432/app")).toBe(true);
    expect(isSecretValue("https://user:tok@example.com/x")).toBe(true);
    expect(isSecretValue("postgres://db.internal/app")).toBe(false);
    expect(isSecretValue("https://example.com/a@b")).toBe(false);
    expect(isSecretValue("/home/me/.local/share/keelson")).toBe(false);
    const env = {
      KEELSON_STORE: "postgres://keelson:s3cret@db/app",
      DATABASE_URL: "mysql://root:pw@localhost/x",
      KEELSON_MODEL: "emulator:x",
      PWD: "/ws",
    };
    expect(toolEnvironment(env)).toEqual({ KEELSON_MODEL: "emulator:x", PWD: "/ws" });
    expect(toolEnvironment(env, { allow: ["KEELSON_STORE"] })).toMatchObject({ KEELSON_STORE: env.KEELSON_STORE });
  });
});
