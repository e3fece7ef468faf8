// PromptSections: a registry of named, ordered system-prompt sections. Listing sorts by order
// then name; an agent registry (parent = the global one) overrides global sections by name;
// a disposer removes exactly the section it set; malformed sections throw 'invalid-section'.
import { describe, expect, test } from "vitest";
import { HookBus } from "../../src/hooks/index.js";
import {
  assembleSystemPrompt,
  PromptError,
  type PromptHooks,
  type PromptSection,
  PromptSections,
} from "../../src/prompt/index.js";
import { thrown } from "../support/thrown.js";

const section = (name: string, order: number, text = `${name} text`): PromptSection => ({ name, order, text });
const names = (sections: readonly PromptSection[]): string[] => sections.map((s) => s.name);

describe("PromptSections", () => {
  test("lists the sections that were set", () => {
    const registry = new PromptSections();
    registry.set(section("identity", 0, "You are Keelson."));
    registry.set(section("rules", 10, "Be brief."));
    expect(registry.list()).toEqual([section("identity", 0, "You are Keelson."), section("rules", 10, "Be brief.")]);
  });

  test("an empty registry lists nothing", () => {
    expect(new PromptSections().list()).toEqual([]);
  });

  test("setting a section of an existing name replaces it", () => {
    const registry = new PromptSections();
    registry.set(section("rules", 10, "old"));
    registry.set(section("rules", 5, "new"));
    expect(registry.list()).toEqual([section("rules", 5, "new")]);
  });

  test("lists by ascending order, ties broken by name, whatever the insertion order", () => {
    const registry = new PromptSections();
    for (const s of [
      section("zeta", 1),
      section("beta", 2),
      section("alpha", 2),
      section("omega", -3),
      section("mid", 1.5),
    ])
      registry.set(s);
    expect(names(registry.list())).toEqual(["omega", "zeta", "mid", "alpha", "beta"]);
  });

  test("orders are compared as numbers, not as strings", () => {
    const registry = new PromptSections();
    for (const s of [section("ten", 10), section("two", 2), section("hundred", 100)]) registry.set(s);
    expect(names(registry.list())).toEqual(["two", "ten", "hundred"]);
  });

  test("name ties are broken by code unit, independent of locale", () => {
    const registry = new PromptSections();
    for (const s of [section("b", 0), section("a", 0), section("B", 0)]) registry.set(s);
    expect(names(registry.list())).toEqual(["B", "a", "b"]);
  });

  test("keeps a frozen copy: mutating the section afterwards changes nothing", () => {
    const registry = new PromptSections();
    const mine = { name: "rules", order: 1, text: "Be brief." };
    registry.set(mine);
    mine.text = "Be verbose.";
    mine.order = 99;
    const [listed] = registry.list();
    expect(listed).toEqual(section("rules", 1, "Be brief."));
    expect(Object.isFrozen(listed)).toBe(true);
  });

  test("keeps only name, order and text", () => {
    const registry = new PromptSections();
    registry.set({ ...section("rules", 1), extra: "ignored" } as PromptSection);
    expect(Object.keys(registry.list()[0]!)).toEqual(["name", "order", "text"]);
  });

  test("each list() is a fresh array the caller may sort or splice", () => {
    const registry = new PromptSections();
    registry.set(section("a", 1));
    const first = registry.list();
    first.pop();
    expect(names(registry.list())).toEqual(["a"]);
    expect(registry.list()).not.toBe(registry.list());
  });

  describe("agent scope (a registry whose parent is the global one)", () => {
    test("an agent section overrides the global section of the same name", () => {
      const global = new PromptSections();
      global.set(section("rules", 10, "global rules"));
      const agent = new PromptSections(global);
      agent.set(section("rules", 10, "agent rules"));
      expect(agent.list()).toEqual([section("rules", 10, "agent rules")]);
    });

    test("the override sorts by its own order, not the global one's", () => {
      const global = new PromptSections();
      global.set(section("identity", 0));
      global.set(section("rules", 10));
      const agent = new PromptSections(global);
      agent.set(section("rules", -1, "first"));
      expect(agent.list()).toEqual([section("rules", -1, "first"), section("identity", 0)]);
    });

    test("the agent sees global sections merged with its own", () => {
      const global = new PromptSections();
      global.set(section("identity", 0));
      const agent = new PromptSections(global);
      agent.set(section("project", 5));
      expect(names(agent.list())).toEqual(["identity", "project"]);
      expect(agent.parent).toBe(global);
    });

    test("the global registry is unaffected by agent sections", () => {
      const global = new PromptSections();
      global.set(section("rules", 10, "global rules"));
      const agent = new PromptSections(global);
      agent.set(section("rules", 10, "agent rules"));
      agent.set(section("project", 5));
      expect(global.list()).toEqual([section("rules", 10, "global rules")]);
    });

    test("sections set globally later are visible to existing agents", () => {
      const global = new PromptSections();
      const agent = new PromptSections(global);
      global.set(section("late", 1));
      expect(names(agent.list())).toEqual(["late"]);
    });

    test("two agents over one global registry do not see each other's sections", () => {
      const global = new PromptSections();
      global.set(section("rules", 10, "global rules"));
      const a = new PromptSections(global);
      const b = new PromptSections(global);
      a.set(section("rules", 10, "a's rules"));
      expect(b.list()).toEqual([section("rules", 10, "global rules")]);
    });

    test("disposing the agent override reveals the global section again", () => {
      const global = new PromptSections();
      global.set(section("rules", 10, "global rules"));
      const agent = new PromptSections(global);
      const dispose = agent.set(section("rules", 10, "agent rules"));
      dispose();
      expect(agent.list()).toEqual([section("rules", 10, "global rules")]);
    });
  });

  describe("disposers", () => {
    test("remove the section they set", () => {
      const registry = new PromptSections();
      registry.set(section("keep", 0));
      const dispose = registry.set(section("rules", 1));
      dispose();
      expect(names(registry.list())).toEqual(["keep"]);
    });

    test("do not remove a later replacement of the same name", () => {
      const registry = new PromptSections();
      const disposeOld = registry.set(section("rules", 1, "old"));
      registry.set(section("rules", 1, "new"));
      disposeOld();
      expect(registry.list()).toEqual([section("rules", 1, "new")]);
    });

    test("do not remove a re-set of the very same section object", () => {
      const registry = new PromptSections();
      const same = section("rules", 1);
      const disposeFirst = registry.set(same);
      registry.set(same);
      disposeFirst();
      expect(names(registry.list())).toEqual(["rules"]);
    });

    test("are idempotent", () => {
      const registry = new PromptSections();
      const dispose = registry.set(section("rules", 1, "old"));
      dispose();
      registry.set(section("rules", 1, "new"));
      dispose();
      expect(registry.list()).toEqual([section("rules", 1, "new")]);
    });

    test("an agent's disposer never touches the global section of the same name", () => {
      const global = new PromptSections();
      global.set(section("rules", 10, "global rules"));
      const agent = new PromptSections(global);
      agent.set(section("rules", 10, "agent rules"))();
      expect(global.list()).toEqual([section("rules", 10, "global rules")]);
    });
  });

  describe("invalid sections", () => {
    test.each<[string, unknown]>([
      ["an empty name", { name: "", order: 0, text: "t" }],
      ["a non-string name", { name: 42, order: 0, text: "t" }],
      ["a missing name", { order: 0, text: "t" }],
      ["a NaN order", { name: "n", order: Number.NaN, text: "t" }],
      ["an infinite order", { name: "n", order: Number.POSITIVE_INFINITY, text: "t" }],
      ["a negative infinite order", { name: "n", order: Number.NEGATIVE_INFINITY, text: "t" }],
      ["a numeric-string order", { name: "n", order: "1", text: "t" }],
      ["a missing order", { name: "n", text: "t" }],
      ["a non-string text", { name: "n", order: 0, text: 5 }],
      ["a missing text", { name: "n", order: 0 }],
      ["a null text", { name: "n", order: 0, text: null }],
    ])("%s throws PromptError 'invalid-section'", (_what, raw) => {
      const error = thrown(() => new PromptSections().set(raw as PromptSection), PromptError);
      expect(error.code).toBe("invalid-section");
      expect(error.name).toBe("PromptError");
    });

    test("the message names the offending section", () => {
      const error = thrown(
        () => new PromptSections().set({ name: "rules", order: Number.NaN, text: "t" }),
        PromptError,
      );
      expect(error.message).toContain("rules");
    });

    test("a rejected section leaves the registry unchanged", () => {
      const registry = new PromptSections();
      registry.set(section("rules", 1, "kept"));
      thrown(() => registry.set({ name: "rules", order: 1, text: 7 as unknown as string }), PromptError);
      expect(registry.list()).toEqual([section("rules", 1, "kept")]);
    });
  });
});

describe("snapshot() and the rendered-prompt reuse", () => {
  test("snapshot() is one frozen array until a section of the registry or its parent changes", () => {
    const global = new PromptSections();
    const registry = new PromptSections(global);
    registry.set(section("a", 1));
    const first = registry.snapshot();
    expect(Object.isFrozen(first)).toBe(true);
    expect(registry.snapshot()).toBe(first);
    const undo = global.set(section("g", 0));
    const second = registry.snapshot();
    expect(second).not.toBe(first);
    expect(names([...second])).toEqual(["g", "a"]);
    undo();
    expect(names([...registry.snapshot()])).toEqual(["a"]);
    registry.set(section("a", 1, "changed"));
    expect(registry.snapshot()[0]!.text).toBe("changed");
  });

  test("an unchanged snapshot renders once; changed variables or sections render again", async () => {
    const bus = new HookBus<PromptHooks>();
    const registry = new PromptSections();
    registry.set(section("a", 1, "hello {{who}}"));
    expect(await assembleSystemPrompt(bus, registry.snapshot(), { who: "x" })).toBe("hello x");
    expect(await assembleSystemPrompt(bus, registry.snapshot(), { who: "x" })).toBe("hello x");
    expect(await assembleSystemPrompt(bus, registry.snapshot(), { who: "y" })).toBe("hello y");
    registry.set(section("a", 1, "bye {{who}}"));
    expect(await assembleSystemPrompt(bus, registry.snapshot(), { who: "y" })).toBe("bye y");
    // A listener that replaces the list is always rendered from what it returned.
    bus.on("system-prompt/assemble", async (_payload, next) => [...(await next()), section("z", 9, "tail")]);
    expect(await assembleSystemPrompt(bus, registry.snapshot(), { who: "y" })).toBe("bye y\n\ntail");
  });
});
