// assembleSystemPrompt(bus, sections, vars): every call runs the `system-prompt/assemble`
// waterfall (no caching: the loop calls it every step), listeners may add, drop or rewrite
// sections over frozen inputs, and the result renders to one string.
import { describe, expect, test } from "vitest";
import { HookBus } from "../../src/hooks/index.js";
import {
  assembleSystemPrompt,
  PromptError,
  type PromptHooks,
  type PromptSection,
  PromptSections,
} from "../../src/prompt/index.js";

const section = (name: string, order: number, text: string): PromptSection => ({ name, order, text });
const base = [section("identity", 0, "You are {{name}}."), section("rules", 10, "Be brief.")];
const vars = { name: "Keelson" };

describe("assembleSystemPrompt", () => {
  test("with no listeners renders the sections as given", async () => {
    expect(await assembleSystemPrompt(new HookBus<PromptHooks>(), base, vars)).toBe("You are Keelson.\n\nBe brief.");
  });

  test("runs the system-prompt/assemble waterfall on every call", async () => {
    const bus = new HookBus<PromptHooks>();
    let calls = 0;
    bus.on("system-prompt/assemble", (_payload, next) => {
      calls++;
      return next();
    });
    for (let i = 0; i < 3; i++) await assembleSystemPrompt(bus, base, vars);
    expect(calls).toBe(3);
  });

  test("reflects registry changes between calls (nothing is cached)", async () => {
    const bus = new HookBus<PromptHooks>();
    const registry = new PromptSections();
    registry.set(section("rules", 0, "v1"));
    expect(await assembleSystemPrompt(bus, registry.list(), {})).toBe("v1");
    registry.set(section("rules", 0, "v2"));
    expect(await assembleSystemPrompt(bus, registry.list(), {})).toBe("v2");
  });

  test("a listener's output can differ from call to call", async () => {
    const bus = new HookBus<PromptHooks>();
    let step = 0;
    bus.on("system-prompt/assemble", async (_payload, next) => [
      ...(await next()),
      section("step", 99, `step ${++step}`),
    ]);
    expect(await assembleSystemPrompt(bus, [], {})).toBe("step 1");
    expect(await assembleSystemPrompt(bus, [], {})).toBe("step 2");
  });

  test("listeners receive the sections and the variables", async () => {
    const bus = new HookBus<PromptHooks>();
    const seen: { sections: readonly PromptSection[]; vars: unknown }[] = [];
    bus.on("system-prompt/assemble", ({ sections, vars: v }, next) => {
      seen.push({ sections, vars: v });
      return next();
    });
    await assembleSystemPrompt(bus, base, vars);
    expect(seen).toEqual([{ sections: base, vars }]);
  });

  test("a listener can add a section, which is sorted and interpolated like the others", async () => {
    const bus = new HookBus<PromptHooks>();
    bus.on("system-prompt/assemble", async (_payload, next) => [
      ...(await next()),
      section("greeting", 5, "Hello from {{name}}."),
    ]);
    expect(await assembleSystemPrompt(bus, base, vars)).toBe("You are Keelson.\n\nHello from Keelson.\n\nBe brief.");
  });

  test("a listener can drop a section", async () => {
    const bus = new HookBus<PromptHooks>();
    bus.on("system-prompt/assemble", async (_payload, next) => (await next()).filter((s) => s.name !== "rules"));
    expect(await assembleSystemPrompt(bus, base, vars)).toBe("You are Keelson.");
  });

  test("a listener can rewrite a section", async () => {
    const bus = new HookBus<PromptHooks>();
    bus.on("system-prompt/assemble", async (_payload, next) =>
      (await next()).map((s) => (s.name === "rules" ? { ...s, text: "Be thorough." } : s)),
    );
    expect(await assembleSystemPrompt(bus, base, vars)).toBe("You are Keelson.\n\nBe thorough.");
  });

  test("listeners compose as middleware: the outer one sees the inner one's result", async () => {
    const bus = new HookBus<PromptHooks>();
    bus.on("system-prompt/assemble", async (_payload, next) =>
      (await next()).map((s) => ({ ...s, text: `${s.text}!` })),
    );
    bus.on("system-prompt/assemble", async (_payload, next) => [
      ...(await next()),
      section("inner", 20, "added inside"),
    ]);
    expect(await assembleSystemPrompt(bus, base, vars)).toBe("You are Keelson.!\n\nBe brief.!\n\nadded inside!");
  });

  test("a global listener (parent bus) and an agent listener both shape the prompt", async () => {
    const global = new HookBus<PromptHooks>();
    const agent = new HookBus<PromptHooks>({ parent: global });
    global.on("system-prompt/assemble", async (_payload, next) => [...(await next()), section("global", 20, "G")]);
    agent.on("system-prompt/assemble", async (_payload, next) => [...(await next()), section("agent", 30, "A")]);
    expect(await assembleSystemPrompt(agent, [], {})).toBe("G\n\nA");
    expect(await assembleSystemPrompt(global, [], {})).toBe("G");
  });

  test("an added section with an unknown variable throws 'unknown-variable'", async () => {
    const bus = new HookBus<PromptHooks>();
    bus.on("system-prompt/assemble", async (_payload, next) => [...(await next()), section("bad", 1, "{{nope}}")]);
    const error = await assembleSystemPrompt(bus, base, vars).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromptError);
    expect((error as PromptError).code).toBe("unknown-variable");
    expect((error as PromptError).message).toContain("bad");
  });

  describe("frozen inputs", () => {
    test("the section array a listener receives is frozen", async () => {
      const bus = new HookBus<PromptHooks>();
      let mutation: unknown;
      bus.on("system-prompt/assemble", ({ sections }, next) => {
        expect(Object.isFrozen(sections)).toBe(true);
        try {
          (sections as PromptSection[]).push(section("sneaky", 0, "x"));
        } catch (e) {
          mutation = e;
        }
        return next();
      });
      expect(await assembleSystemPrompt(bus, base, vars)).toBe("You are Keelson.\n\nBe brief.");
      expect(mutation).toBeInstanceOf(TypeError);
    });

    test("the variables a listener receives are frozen", async () => {
      const bus = new HookBus<PromptHooks>();
      let mutation: unknown;
      bus.on("system-prompt/assemble", ({ vars: v }, next) => {
        expect(Object.isFrozen(v)).toBe(true);
        try {
          (v as Record<string, string>).name = "Mallory";
        } catch (e) {
          mutation = e;
        }
        return next();
      });
      expect(await assembleSystemPrompt(bus, base, vars)).toBe("You are Keelson.\n\nBe brief.");
      expect(mutation).toBeInstanceOf(TypeError);
    });

    test("the caller's array and variables are never frozen or changed", async () => {
      const mine = [...base];
      const myVars = { name: "Keelson" };
      const bus = new HookBus<PromptHooks>();
      bus.on("system-prompt/assemble", async (_payload, next) => (await next()).slice(1));
      await assembleSystemPrompt(bus, mine, myVars);
      expect(Object.isFrozen(mine)).toBe(false);
      expect(Object.isFrozen(myVars)).toBe(false);
      expect(mine).toEqual(base);
    });

    test("sections listed from a registry are frozen objects as well", async () => {
      const registry = new PromptSections();
      registry.set(section("rules", 0, "Be brief."));
      const bus = new HookBus<PromptHooks>();
      let mutation: unknown;
      bus.on("system-prompt/assemble", ({ sections }, next) => {
        try {
          (sections[0] as { text: string }).text = "hijacked";
        } catch (e) {
          mutation = e;
        }
        return next();
      });
      expect(await assembleSystemPrompt(bus, registry.list(), {})).toBe("Be brief.");
      expect(mutation).toBeInstanceOf(TypeError);
    });
  });

  describe("failing listeners", () => {
    test.each<[string, unknown]>([
      ["undefined", undefined],
      ["a string", "You are Keelson."],
      ["an object", { sections: [] }],
    ])("a listener returning %s throws PromptError", async (_what, value) => {
      const bus = new HookBus<PromptHooks>();
      bus.on("system-prompt/assemble", () => value as readonly PromptSection[]);
      const error = await assembleSystemPrompt(bus, base, vars).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PromptError);
      expect((error as PromptError).code).toBe("invalid-section");
    });

    test.each<[string, unknown]>([
      ["a non-string text", { name: "x", order: 0, text: 5 }],
      ["an empty name", { name: "", order: 0, text: "t" }],
      ["a NaN order", { name: "x", order: Number.NaN, text: "t" }],
      ["a non-object entry", "just text"],
    ])("a listener returning a section with %s throws PromptError 'invalid-section'", async (_what, bad) => {
      const bus = new HookBus<PromptHooks>();
      bus.on("system-prompt/assemble", async (_payload, next) => [...(await next()), bad as PromptSection]);
      const error = await assembleSystemPrompt(bus, base, vars).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PromptError);
      expect((error as PromptError).code).toBe("invalid-section");
    });

    test("a throwing listener's error propagates unchanged", async () => {
      const bus = new HookBus<PromptHooks>();
      const boom = new Error("listener failed");
      bus.on("system-prompt/assemble", () => {
        throw boom;
      });
      await expect(assembleSystemPrompt(bus, base, vars)).rejects.toBe(boom);
    });

    test("an async rejection propagates unchanged", async () => {
      const bus = new HookBus<PromptHooks>();
      const boom = new Error("async failure");
      bus.on("system-prompt/assemble", async () => {
        throw boom;
      });
      await expect(assembleSystemPrompt(bus, base, vars)).rejects.toBe(boom);
    });
  });
});
