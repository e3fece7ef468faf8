// Runs the fixture files of plain-summary.test.ts with the suite's own closing-line reporter.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [process.env.KEELSON_SUMMARY_FIXTURES ?? "*.fixture.ts"],
    reporters: ["../plain-summary-reporter.ts"],
  },
});
