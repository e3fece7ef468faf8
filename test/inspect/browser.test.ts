// End to end in a real browser: `keelson inspect` (the built CLI) serving sessions made by
// `keelson run` / `resume` / `fork` on the emulator, driven with playwright-core in headless
// Chromium (Debian's, or the npm-shipped one on a machine without it: test/support/chromium.ts).
// Each view is checked against the CLI's own output and saved as a screenshot under
// test-artifacts/inspect/ (with KEELSON_UPDATE_SCREENSHOTS=1, the timeline also as
// docs/images/inspect-timeline.png for the README).
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CacheReport } from "../../src/audit/index.js";
import { keelson } from "../cli/run-keelson.js";
import { chromiumBinary } from "../support/chromium.js";
import { type Fixture, type InspectProcess, makeFixture, ok, startInspect, writeLargeSession } from "./fixture.js";

// The page's document, in the callbacks run in the browser (this file is typechecked without the DOM lib).
declare const document: {
  querySelector(selector: string): { readonly textContent: string | null } | null;
  querySelectorAll(selector: string): { readonly length: number };
};

const ROOT = resolve(import.meta.dirname, "../..");
const ARTIFACTS = join(ROOT, "test-artifacts/inspect");
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let fx: Fixture;
let large: string;
let server: InspectProcess;
let browser: Browser;
let page: Page;

/** Builds the front end when dist/inspect/ui is missing or older than its sources. */
function ensureUiBuilt(): void {
  const bundle = join(ROOT, "dist/inspect/ui/app.js");
  const src = join(ROOT, "src/inspect/ui");
  const newest = Math.max(
    ...execFileSync("find", [src, "-type", "f"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((f) => statSync(f).mtimeMs),
  );
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= newest) return;
  execFileSync(process.execPath, [join(ROOT, "scripts/build-ui.mjs")], { stdio: "inherit" });
}

const shot = async (name: string): Promise<void> => {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
};

const open = async (hash: string): Promise<void> => {
  await page.goto(`${server.origin}/${hash}`);
};

beforeAll(async () => {
  const { executablePath } = await chromiumBinary();
  ensureUiBuilt();
  await mkdir(ARTIFACTS, { recursive: true });
  fx = await makeFixture();
  large = await writeLargeSession(fx.sessions, 10_000);
  server = await startInspect(fx.home, []);
  // playwright gives every launch a new empty profile directory of its own
  browser = await chromium.launch({ executablePath, args: FLAGS });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(30_000);
  await page.goto(server.url); // the page takes the token from the fragment into memory
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (server !== undefined) expect(await server.stop()).toBe(0);
  if (fx !== undefined) await rm(fx.home, { recursive: true, force: true });
});

describe("keelson inspect in Chromium", () => {
  it("keeps the token out of cookies and the address bar; without it as a header, data is 401", async () => {
    // the page holds the token in memory: no cookie (cookies ignore ports — issue #20 F5), none in the URL
    await page.waitForSelector("[data-session]");
    expect(await page.context().cookies()).toEqual([]);
    expect(page.url()).toBe(`${server.origin}/#/`);
    const bare = await browser.newPage();
    // the shell loads, but without the token its data requests are 401 and the page says so
    expect((await bare.goto(`${server.origin}/`))!.status()).toBe(200);
    await bare.waitForSelector(".problem");
    expect(await bare.textContent(".problem")).toContain("401");
    expect((await bare.goto(`${server.origin}/api/sessions`))!.status()).toBe(401);
    expect((await bare.goto(`${server.origin}/api/sessions/${fx.main}/live`))!.status()).toBe(401);
    // the right token in a cookie, with no header, is refused too
    await bare.context().addCookies([{ name: "keelson_inspect", value: server.token, url: server.origin }]);
    expect((await bare.goto(`${server.origin}/api/sessions`))!.status()).toBe(401);
    expect(await bare.evaluate(async () => (await fetch("/api/sessions")).status)).toBe(401);
    await bare.close();
  });

  it("lists the sessions with the fork tree, and searches by prompt", async () => {
    await open("#/");
    await page.waitForSelector(`[data-session="${fx.main}"]`);
    expect(await page.textContent(`[data-session="${fx.fork}"]`)).toContain(`← ${fx.main.slice(0, 8)}`);
    expect(await page.textContent(`[data-session="${fx.main}"]`)).toContain(`→ ${fx.fork.slice(0, 8)}`);
    await shot("sessions");
    await page.fill("[data-testid=session-search]", "what is in file-");
    await page.waitForFunction(() => document.querySelectorAll("[data-session]").length === 1);
    expect(await page.getAttribute("[data-session]", "data-session")).toBe(large);
    await page.fill("[data-testid=session-search]", "");
  }, 60_000);

  it("shows the timeline: loop instances, turns, steps, tool calls and results", async () => {
    await open(`#/session/${fx.main}/timeline`);
    await page.waitForSelector("[data-testid=timeline] [data-kind=turn]");
    const instances = await page.$$eval("[data-testid=timeline] [data-kind=instance]", (els) =>
      els.map((e) => e.textContent?.trim()),
    );
    expect(instances).toEqual(["loop instance 1 (new session)", "loop instance 2 (resume)"]);
    expect(await page.textContent("[data-testid=timeline] [data-kind=tool-call]")).toContain("read");
    expect(await page.textContent("[data-testid=timeline] [data-kind=tool-result]")).toContain("Ship the inspector.");
    // verify runs after the timeline renders ("verify: checking…" until it answers).
    await page.waitForFunction(
      () => !document.querySelector("[data-testid=verify]")?.textContent?.includes("checking"),
    );
    expect(await page.textContent("[data-testid=verify]")).toContain("verify: clean");
    await page.click("[data-testid=timeline] [data-kind=tool-call]");
    await page.waitForFunction(() =>
      document.querySelector("[data-testid=event-detail]")?.textContent?.includes('"tool/call"'),
    );
    await shot("timeline");
    // The README's screenshot is refreshed on request only, so a test run leaves the tree clean.
    if (process.env.KEELSON_UPDATE_SCREENSHOTS === "1") {
      await mkdir(join(ROOT, "docs/images"), { recursive: true });
      await page.screenshot({ path: join(ROOT, "docs/images/inspect-timeline.png") });
    }
  });

  it("opens a request whose text is `keelson requests --step N`'s, with the prefix marked request-only", async () => {
    const cli = ok(await keelson(fx.home, ["requests", fx.main, "--step", "3"])).stdout;
    await open(`#/session/${fx.main}/request/3`);
    await page.waitForSelector("[data-testid=prefix]");
    expect(await page.textContent("[data-testid=prefix] .request-only")).toBe("request-only · not in history");
    expect(await page.textContent("[data-testid=prefix-instance]")).toContain(
      "composed by loop instance 2 — logged on its resume snapshot",
    );
    expect(await page.$$("[data-testid=breakpoint]")).not.toHaveLength(0);
    await shot("request-structure");
    await page.click("[data-testid=mode-json]");
    expect(`${await page.textContent("[data-testid=request-text]")}\n`).toBe(cli);
    await page.click("[data-testid=mode-anthropic]");
    const wire = ok(await keelson(fx.home, ["requests", fx.main, "--step", "3", "--wire", "anthropic"])).stdout;
    expect(JSON.parse((await page.textContent("[data-testid=wire-anthropic]"))!)).toEqual(JSON.parse(wire));
    await shot("request-wire");
  });

  it("shows the resume snapshot as a side-by-side diff with its reason", async () => {
    await open(`#/session/${fx.main}/headers`);
    await page.waitForSelector("[data-testid=header-reason]");
    expect(await page.textContent("[data-testid=header-reason]")).toContain("reason: resume");
    const added = await page.$$eval("[data-testid=header-diff] td.add", (els) => els.map((e) => e.textContent ?? ""));
    expect(added.some((t) => t.includes("todo.md"))).toBe(true);
    await shot("headers");
  });

  it("draws the cache chart with `keelson cache --json`'s numbers", async () => {
    const report = JSON.parse(ok(await keelson(fx.home, ["cache", fx.main, "--json"])).stdout) as CacheReport;
    await open(`#/session/${fx.main}/cache`);
    await page.waitForSelector("[data-testid=bar]");
    const bars = await page.$$eval("[data-testid=bar]", (els) =>
      els.map((e) => ({
        request: e.getAttribute("data-request"),
        read: Number(e.getAttribute("data-read")),
        write: Number(e.getAttribute("data-write")),
        input: Number(e.getAttribute("data-input")),
        cacheable: Number(e.getAttribute("data-cacheable")),
      })),
    );
    expect(bars).toEqual(
      report.requests.map((l) => ({
        request: `${l.turn}.${l.step}`,
        read: l.usage?.cacheReadTokens ?? 0,
        write: l.usage?.cacheWriteTokens ?? 0,
        input: l.usage?.inputTokens ?? 0,
        cacheable: l.cacheableTokens,
      })),
    );
    expect(await page.textContent("[data-testid=cache-cost]")).toBe(`$${report.totals.cost.toFixed(5)}`);
    await page.hover("[data-testid=bar]:nth-of-type(2)");
    expect(await page.textContent("[data-testid=cache-hover]")).toContain("first change:");
    await shot("cache");
  });

  it("shows the Replay tab: `keelson replay`'s report for the session, its verdict as `--check` says", async () => {
    const cli = await keelson(fx.home, ["replay", fx.main, "--check", "--limit", "0"]);
    expect([0, 9]).toContain(cli.code);
    await open(`#/session/${fx.main}/replay`);
    await page.waitForSelector("[data-testid=replay-report]");
    expect(await page.textContent("[data-testid=replay-verdict]")).toBe(
      cli.code === 0 ? "replay: identical" : "replay: differs",
    );
    expect(`${await page.textContent("[data-testid=replay-report]")}\n`).toBe(cli.stdout);
    await shot("replay");
  });

  it("follows a live session: a turn `keelson resume` appends appears while the page is open", async () => {
    await open(`#/session/${fx.main}/timeline`);
    await page.waitForSelector("[data-testid=timeline] [data-kind=turn]");
    expect(await page.textContent("[data-testid=session-stats]")).toContain("2 turns");
    ok(await keelson(fx.home, ["resume", fx.main, "a live turn"]));
    await page.waitForFunction(() =>
      document.querySelector("[data-testid=session-stats]")?.textContent?.includes("3 turns"),
    );
    await page.$eval("[data-testid=timeline]", (el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForSelector("text=user: a live turn");
    await page.waitForSelector("text=loop instance 3 (resume)");
    await shot("live");
  });

  // The first-paint time is printed and saved (first-paint.json), not asserted: tests never depend
  // on timing, and on a loaded machine a cold paint can take seconds. What is asserted is what
  // keeps it fast at any size: the timeline is virtualized (a bounded number of rows in the DOM).
  it("paints a 10k-event session's timeline with a bounded number of DOM rows", async () => {
    const fresh = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    fresh.on("pageerror", (e) => problems.push(e.message));
    // one cold navigation straight to the session, as `keelson inspect <id>` prints it
    const started = Date.now();
    await fresh.goto(`${server.origin}/#token=${server.token}&session=${large}`);
    await fresh.waitForSelector("[data-testid=timeline] [data-kind=turn]").catch(async (error: unknown) => {
      await fresh.screenshot({ path: join(ARTIFACTS, "timeline-10k-failed.png") });
      throw new Error(
        `${String(error)}\npage errors: ${problems.join("; ")}\npage: ${await fresh.textContent("body")}`,
      );
    });
    const wall = Date.now() - started;
    // the mark is set in the animation frame after the rows are committed, so it can come a frame
    // after the selector matched (a CI run on a loaded machine read it before it was set)
    const mark = await fresh
      .waitForFunction(() => performance.getEntriesByName("keelson-timeline-painted")[0]?.startTime)
      .then(async (handle) => Number(await handle.jsonValue()));
    const rows = await fresh.$$eval("[data-testid=timeline] .vrow", (els) => els.length);
    const events = Number(/(\d+) events/.exec((await fresh.textContent("[data-testid=session-stats]")) ?? "")?.[1]);
    await fresh.screenshot({ path: join(ARTIFACTS, "timeline-10k.png") });
    await fresh.close();
    await writeFile(
      join(ARTIFACTS, "first-paint.json"),
      `${JSON.stringify({ events, firstPaintMs: mark, wallMs: wall, domRows: rows })}\n`,
    );
    console.log(
      `10k-event timeline: first paint ${mark.toFixed(0)} ms after navigation (wall ${wall} ms), ${rows} rows in the DOM for ${events} events`,
    );
    expect(events).toBeGreaterThanOrEqual(10_000);
    expect(rows).toBeLessThan(200); // virtualized
    expect(mark).toBeGreaterThan(0);
  }, 60_000);

  it("saved a screenshot of each view", async () => {
    const names = (await readdir(ARTIFACTS)).filter((n) => n.endsWith(".png")).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        "cache.png",
        "headers.png",
        "live.png",
        "request-structure.png",
        "replay.png",
        "request-wire.png",
        "sessions.png",
        "timeline.png",
      ]),
    );
    expect((await stat(join(ROOT, "docs/images/inspect-timeline.png"))).size).toBeGreaterThan(10_000);
  });
});
