import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/support/fresh-build.ts", "./test/support/postgres-global-setup.ts"],
    reporters: ["default", "./test/support/plain-summary-reporter.ts"],
  },
});
