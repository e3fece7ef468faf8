// workspaceInstructions mid-session: the prefix stays frozen; instruction files a tool call
// reaches (or changes) arrive as one durable `context/message` after the step's tool results.
import { describe, expect, test } from "vitest";
import { workspaceInstructions } from "../../src/context/index.js";
import type { AgentPlugin } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { expectLogMatchesRequests, loggedPrefix, put, reminder, runTurn, tempProject, textOf } from "./support.js";

const updated = (path: string, content: string): string => `Updated instructions from: ${path}\n${content}`;
const write = (path: string, content: string) => ({ name: "write", arguments: { path, content } });
const read = (path: string, key = "path") => ({ name: "read", arguments: { [key]: path } });

/** The `context/message` texts of the log, in order. */
const contextTexts = (run: Awaited<ReturnType<typeof runTurn>>): string[] =>
  run.agent.session.events
    .filter((e) => e.type === "context/message")
    .map((e) => textOf({ role: "user", content: (e.data as { content: Message["content"] }).content } as Message));

describe("updates after tool calls", () => {
  test("a tool writing AGENTS.md in a subdirectory → the next request carries the update; the prefix and header are unchanged", async () => {
    const { root, home } = await tempProject();
    await put(root, "AGENTS.md", "root rules\n");
    const run = await runTurn(
      root,
      [workspaceInstructions({ home })],
      [{ toolCalls: [write("sub/AGENTS.md", "sub rules\n")] }],
    );

    const [first, second] = run.provider.requests;
    expect(second!.messages[0]).toEqual(first!.messages[0]);
    const last = second!.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(textOf(last)).toBe(reminder(updated(`${root}/sub/AGENTS.md`, "sub rules")));
    expect(
      run.agent.session.events
        .filter((e) => e.type === "context/message")
        .map((e) => (e.data as { source: string }).source),
    ).toEqual(["tools/post-execute"]);
    expect(run.agent.session.events.filter((e) => e.type === "request/header-delta")).toEqual([]);
    expect(loggedPrefix(run.agent)).toEqual([first!.messages[0]]);
    expectLogMatchesRequests(run);
  });

  test("reaching a directory with an unseen instruction file announces it (broadest first) once per instance", async () => {
    const { root, home } = await tempProject();
    await put(root, "AGENTS.md", "root\n");
    await put(root, "pkg/CLAUDE.md", "pkg\n");
    await put(root, "pkg/lib/AGENTS.md", "lib\n");
    const run = await runTurn(
      root,
      [workspaceInstructions({ home })],
      [
        { toolCalls: [read("pkg/lib/deep/file.ts", "file_path")] },
        { toolCalls: [read("pkg/lib/other.ts"), read(`${root}/pkg`, "file")] },
        { toolCalls: [read("README.md"), read("AGENTS.md")] }, // in the prefix already: nothing
      ],
    );
    expect(contextTexts(run)).toEqual([
      reminder([updated(`${root}/pkg/CLAUDE.md`, "pkg"), updated(`${root}/pkg/lib/AGENTS.md`, "lib")].join("\n\n")),
    ]);
  });

  test("editing an instruction file that is part of the prefix announces its new content, not an unchanged re-read", async () => {
    const { root, home } = await tempProject();
    await put(root, "AGENTS.md", "old rules\n");
    const run = await runTurn(
      root,
      [workspaceInstructions({ home })],
      [
        { toolCalls: [write("AGENTS.md", "new rules\n")] },
        { toolCalls: [read("AGENTS.md")] },
        { toolCalls: [write("AGENTS.md", "new rules\n")] },
      ],
    );
    expect(contextTexts(run)).toEqual([reminder(updated(`${root}/AGENTS.md`, "new rules"))]);
    expect(textOf(run.provider.requests[3]!.messages[0])).toContain("old rules"); // the prefix stays frozen
  });

  test("paths outside the project, non-path arguments and non-instruction files announce nothing", async () => {
    const { root, home } = await tempProject();
    const outside = (await tempProject()).root;
    await put(outside, "AGENTS.md", "outside\n");
    const run = await runTurn(
      root,
      [workspaceInstructions({ home })],
      [
        {
          toolCalls: [
            read(`${outside}/x.ts`),
            { name: "read", arguments: { path: "a", note: `${root}/x/AGENTS.md` } },
            write("notes.md", "AGENTS.md"),
          ],
        },
      ],
    );
    expect(contextTexts(run)).toEqual([]);
  });

  test("merges with context from other post-execute listeners, and leaves a block decision alone", async () => {
    const { root, home } = await tempProject();
    await put(root, "b/AGENTS.md", "b\n");
    const inner: AgentPlugin = (host) => {
      host.on("tools/post-execute", async ({ call }, next) => {
        const decision = await next();
        if (call.name === "write" && decision.action === "accept")
          return { ...decision, additionalContext: [{ type: "text", text: "inner note" }] };
        if (call.name === "read") return { action: "block", feedback: "no reading" };
        return decision;
      });
      return undefined;
    };
    const run = await runTurn(
      root,
      [workspaceInstructions({ home }), inner],
      [
        { toolCalls: [write("a/AGENTS.md", "a\n")] },
        { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "" } }, read("b")] },
      ],
    );
    const contexts = run.agent.session.events
      .filter((e) => e.type === "context/message")
      .map((e) => (e.data as { content: { text: string }[] }).content.map((c) => c.text));
    // b/AGENTS.md was reached only by the blocked read, so it is not announced
    expect(contexts).toEqual([["inner note", reminder(updated(`${root}/a/AGENTS.md`, "a"))], ["inner note"]]);
    const blocked = run.agent.session.events.filter((e) => e.type === "tool/result").at(-1)!.data as {
      isError: boolean;
      error?: string;
    };
    expect(blocked).toMatchObject({ isError: true, error: "blocked" });
  });
});
