// skillsCatalog: one sorted, escaped, capped `<system-reminder>` listing `name: description`,
// discovered once per instance in precedence order (first name wins), plus the `skill` tool.
import { describe, expect, test } from "vitest";
import { ContextError, skillsCatalog } from "../../src/context/index.js";
import { loggedPrefix, put, reminder, runTurn, sentPrefix, skillFile, tempProject, textOf } from "./support.js";

const HEADING = "Skills available (use the skill tool to load one):";

describe("the catalog message", () => {
  test("lists every skill as `name: description`, sorted by name, as one user-role reminder in front of the history", async () => {
    const { root, home } = await tempProject();
    await put(root, ".keelson/skills/zeta/SKILL.md", skillFile("zeta", "Last one."));
    await put(root, ".keelson/skills/alpha/SKILL.md", skillFile("alpha", "First one."));
    await put(root, ".agents/skills/mid-way/SKILL.md", skillFile("mid-way", "In between."));
    const run = await runTurn(root, [skillsCatalog({ home })]);

    const prefix = sentPrefix(run);
    expect(prefix).toHaveLength(1);
    expect(prefix[0]!.role).toBe("user");
    expect(textOf(prefix[0])).toBe(
      reminder(HEADING, "- alpha: First one.", "- mid-way: In between.", "- zeta: Last one."),
    );
    expect(loggedPrefix(run.agent)).toEqual(prefix);
  });

  test("project .keelson/skills wins over .agents/skills, then configured dirs, then <home>/skills (first name wins)", async () => {
    const { root, home } = await tempProject();
    const extra = `${root}/../${root.split("/").pop()}-extra`; // resolved against cwd, outside the project
    await put(root, ".keelson/skills/deploy/SKILL.md", skillFile("deploy", "from keelson"));
    await put(root, ".agents/skills/deploy/SKILL.md", skillFile("deploy", "from agents"));
    await put(root, ".agents/skills/review/SKILL.md", skillFile("review", "from agents"));
    await put(root, "team-skills/review/SKILL.md", skillFile("review", "from dirs"));
    await put(root, "team-skills/lint/SKILL.md", skillFile("lint", "from dirs"));
    await put(home, "skills/lint/SKILL.md", skillFile("lint", "from home"));
    await put(home, "skills/notes/SKILL.md", skillFile("notes", "from home"));
    const run = await runTurn(root, [skillsCatalog({ home, dirs: ["team-skills", extra] })]);

    expect(textOf(sentPrefix(run)[0])).toBe(
      reminder(HEADING, "- deploy: from keelson", "- lint: from dirs", "- notes: from home", "- review: from agents"),
    );
  });

  test("the project root is the nearest ancestor with .git, so a nested cwd still finds the project's skills", async () => {
    const { root, home } = await tempProject();
    await put(root, ".keelson/skills/build/SKILL.md", skillFile("build", "Builds."));
    await put(root, "packages/app/src/index.ts", "");
    const run = await runTurn(`${root}/packages/app/src`, [skillsCatalog({ home })]);
    expect(textOf(sentPrefix(run)[0])).toBe(reminder(HEADING, "- build: Builds."));
  });

  test("descriptions are whitespace-collapsed and XML-escaped, and nothing else of the skill is rendered", async () => {
    const { root, home } = await tempProject();
    await put(
      root,
      ".keelson/skills/xml/SKILL.md",
      "---\nname: xml\ndescription: |\n  Use <b>bold</b> &\n    keep   spacing\n---\nSECRET BODY\n",
    );
    const run = await runTurn(root, [skillsCatalog({ home })]);
    const text = textOf(sentPrefix(run)[0]);
    expect(text).toBe(reminder(HEADING, "- xml: Use &lt;b&gt;bold&lt;/b&gt; &amp; keep spacing"));
    expect(text).not.toContain("SECRET BODY");
    expect(text).not.toContain(root);
  });

  test("descriptions are capped at maxDescription characters, the ellipsis included", async () => {
    const { root, home } = await tempProject();
    await put(root, ".keelson/skills/long/SKILL.md", skillFile("long", "x".repeat(600)));
    await put(root, ".keelson/skills/short/SKILL.md", skillFile("short", "y".repeat(500)));
    await put(root, ".keelson/skills/tiny/SKILL.md", skillFile("tiny", "abcdefghijkl"));
    const defaults = await runTurn(root, [skillsCatalog({ home })]);
    expect(textOf(sentPrefix(defaults)[0])).toBe(
      reminder(HEADING, `- long: ${"x".repeat(499)}…`, `- short: ${"y".repeat(500)}`, "- tiny: abcdefghijkl"),
    );

    const capped = await runTurn(root, [skillsCatalog({ home, maxDescription: 5 })]);
    expect(textOf(sentPrefix(capped)[0])).toBe(reminder(HEADING, "- long: xxxx…", "- short: yyyy…", "- tiny: abcd…"));
  });

  test("two agents over the same skills render byte-identical prefixes", async () => {
    const { root, home } = await tempProject();
    for (const name of ["c-one", "a-two", "b-three"])
      await put(root, `.keelson/skills/${name}/SKILL.md`, skillFile(name, `About ${name}.`));
    await put(home, "skills/d-four/SKILL.md", skillFile("d-four", "Home <skill>."));
    const first = await runTurn(root, [skillsCatalog({ home })]);
    const second = await runTurn(root, [skillsCatalog({ home })]);
    expect(JSON.stringify(loggedPrefix(second.agent))).toBe(JSON.stringify(loggedPrefix(first.agent)));
    expect(JSON.stringify(sentPrefix(second))).toBe(JSON.stringify(sentPrefix(first)));
  });
});

describe("invalid and missing skills", () => {
  test("skips invalid skills, reports each on agent/error (where 'skills'), and keeps the valid ones", async () => {
    const { root, home } = await tempProject();
    await put(root, ".keelson/skills/good/SKILL.md", skillFile("good", "Fine."));
    await put(root, ".keelson/skills/Bad-Case/SKILL.md", skillFile("Bad-Case", "Upper case."));
    await put(root, ".keelson/skills/mismatch/SKILL.md", skillFile("other-name", "Wrong folder."));
    await put(root, ".keelson/skills/no-desc/SKILL.md", "---\nname: no-desc\n---\nbody\n");
    await put(root, ".keelson/skills/no-front/SKILL.md", "# just markdown\n");
    await put(root, ".keelson/skills/bad-yaml/SKILL.md", "---\nname: [unclosed\n---\n");
    await put(root, ".keelson/skills/not-a-skill/README.md", "no SKILL.md here");
    // an invalid project skill does not shadow a valid one of the same name further down
    await put(home, "skills/no-desc/SKILL.md", skillFile("no-desc", "From home."));
    const run = await runTurn(root, [skillsCatalog({ home })]);

    expect(textOf(sentPrefix(run)[0])).toBe(reminder(HEADING, "- good: Fine.", "- no-desc: From home."));
    const reported = run.errors.filter((e) => e.where === "skills").map((e) => e.error as ContextError);
    expect(reported.every((e) => e instanceof ContextError && e.code === "invalid-skill")).toBe(true);
    expect(reported.map((e) => e.message.match(/skills\/([^/]+)\/SKILL\.md/)?.[1])).toEqual([
      "Bad-Case",
      "bad-yaml",
      "mismatch",
      "no-desc",
      "no-front",
    ]);
  });

  test("no skills anywhere: no prefix message, and the header carries no messagePrefix", async () => {
    const { root, home } = await tempProject();
    await put(root, ".keelson/skills/empty-folder/notes.txt", "nothing");
    const run = await runTurn(root, [skillsCatalog({ home })]);
    expect(sentPrefix(run)).toEqual([]);
    expect(loggedPrefix(run.agent)).toBeUndefined();
    expect(run.errors).toEqual([]);
  });
});

describe("the skill tool", () => {
  test("returns the body of a known skill, and an error listing the known names for an unknown one", async () => {
    const { root, home } = await tempProject();
    await put(
      root,
      ".keelson/skills/deploy/SKILL.md",
      skillFile("deploy", "Deploys.", "# Deploy\n\nRun `make ship`.\n"),
    );
    await put(home, "skills/audit/SKILL.md", skillFile("audit", "Audits."));
    const run = await runTurn(
      root,
      [skillsCatalog({ home })],
      [
        {
          toolCalls: [
            { name: "skill", arguments: { name: "deploy" } },
            { name: "skill", arguments: { name: "nope" } },
          ],
        },
      ],
    );

    const results = run.agent.session.events
      .filter((e) => e.type === "tool/result")
      .map((e) => e.data as { content: { text: string }[]; isError: boolean });
    expect(results).toEqual([
      expect.objectContaining({ content: [{ type: "text", text: "# Deploy\n\nRun `make ship`.\n" }], isError: false }),
      expect.objectContaining({
        content: [{ type: "text", text: 'Unknown skill "nope". Known skills: audit, deploy.' }],
        isError: true,
      }),
    ]);
    expect((run.provider.requests[0]!.tools ?? []).map((t) => t.name)).toContain("skill");
  });

  test("unloading the plugin (dispose) unregisters the tool", async () => {
    const { root, home } = await tempProject();
    const run = await runTurn(root, [skillsCatalog({ home })]);
    expect(run.agent.tools.get("skill")).toBeUndefined();
  });
});
