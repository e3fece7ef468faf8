// The three contributors on one agent: their messages reach the wire in registration order,
// directly after the system slot, logged once on the header and identical on every request.
import { expect, test } from "vitest";
import { skillsCatalog, workspaceBaseline, workspaceInstructions } from "../../src/context/index.js";
import {
  expectLogMatchesRequests,
  loggedPrefix,
  loggedPrefixes,
  mergedRequests,
  put,
  rig,
  runTurn,
  sentPrefix,
  skillFile,
  tempProject,
  textOf,
} from "./support.js";

test("skills, instructions and baseline compose in registration order in front of the history", async () => {
  const { root, home } = await tempProject();
  await put(root, ".keelson/skills/ship/SKILL.md", skillFile("ship", "Ships it."));
  await put(root, "AGENTS.md", "Be brief.\n");
  const plugins = [skillsCatalog({ home }), workspaceInstructions({ home }), workspaceBaseline({ gitStatus: false })];
  const run = await runTurn(root, plugins, [{ toolCalls: [{ name: "skill", arguments: { name: "ship" } }] }]);

  const prefix = sentPrefix(run);
  expect(prefix.map((m) => textOf(m).split("\n")[1])).toEqual([
    "Skills available (use the skill tool to load one):",
    `Instructions from: ${root}/AGENTS.md`,
    `Working directory: ${root}`,
  ]);
  expect(loggedPrefix(run.agent)).toEqual(prefix);
  for (const request of run.provider.requests) expect(request.messages.slice(0, 3)).toEqual(prefix);
  expect(run.provider.requests[0]!.messages[3]).toEqual({ role: "user", content: [{ type: "text", text: "go" }] });
  expectLogMatchesRequests(run);

  const reversed = await runTurn(root, [...plugins].reverse());
  expect(sentPrefix(reversed)).toEqual([...prefix].reverse());
});

test("a new instance over the same session recomposes byte-identically when nothing changed, and drift is confined to the changed contributor", async () => {
  const { root, home } = await tempProject();
  await put(root, ".keelson/skills/ship/SKILL.md", skillFile("ship", "Ships it."));
  await put(root, "AGENTS.md", "Be brief.\n");
  const plugins = () => [
    skillsCatalog({ home }),
    workspaceInstructions({ home }),
    workspaceBaseline({ gitStatus: false }),
  ];
  const first = await runTurn(root, plugins());

  const again = rig(root, plugins(), [], { session: first.agent.session });
  expect((await again.agent.send("next")).reason).toEqual({ kind: "completed" });
  await again.agent.dispose();
  const [initial, resumed] = loggedPrefixes(first.agent.session);
  expect(JSON.stringify(resumed)).toBe(JSON.stringify(initial));

  await put(root, ".keelson/skills/zap/SKILL.md", skillFile("zap", "Zaps it."));
  const drifted = rig(root, plugins(), [], { session: first.agent.session });
  expect((await drifted.agent.send("more")).reason).toEqual({ kind: "completed" });
  await drifted.agent.dispose();
  const last = loggedPrefixes(first.agent.session).at(-1)!;
  expect(last.slice(1)).toEqual(initial!.slice(1));
  expect(textOf(last[0])).toContain("- zap: Zaps it.");
  expectLogMatchesRequests({ agent: drifted.agent, provider: mergedRequests(first, again, drifted) });
});
