// The Chromium the browser tests drive: Debian's /usr/bin/chromium when the machine has it,
// otherwise the build the npm registry ships in @sparticuz/chromium (a dev dependency, so `npm ci`
// is all a new machine needs; its `executablePath()` unpacks the browser into the temp dir).
// KEELSON_TEST_BINARIES=npm forces the npm-shipped one (CI does, so every landing proves the
// fresh-machine path).
import { existsSync } from "node:fs";

export const SYSTEM_CHROMIUM = "/usr/bin/chromium";

export interface ChromiumBinary {
  readonly executablePath: string;
  readonly source: "system" | "npm";
}

/** The browser to launch (see the module comment). */
export async function chromiumBinary(system = SYSTEM_CHROMIUM): Promise<ChromiumBinary> {
  if (process.env.KEELSON_TEST_BINARIES !== "npm" && existsSync(system))
    return { executablePath: system, source: "system" };
  const { default: chromium } = await import("@sparticuz/chromium");
  return { executablePath: await chromium.executablePath(), source: "npm" };
}
