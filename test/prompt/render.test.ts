// interpolate and renderSections: `{{var}}` placeholders are replaced (loudly failing on an
// unknown name); sections render sorted, trimmed, empty ones dropped, joined by a blank line,
// byte-for-byte deterministic.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { interpolate, PromptError, type PromptSection, renderSections } from "../../src/prompt/index.js";
import { thrown } from "../support/thrown.js";

const section = (name: string, order: number, text: string): PromptSection => ({ name, order, text });

describe("interpolate", () => {
  test("replaces {{var}} and {{ var }}", () => {
    expect(interpolate("cwd={{cwd}} model={{ model }}", { cwd: "/work", model: "m1" })).toBe("cwd=/work model=m1");
  });

  test("tolerates any whitespace inside the braces", () => {
    expect(interpolate("[{{   cwd\t}}]", { cwd: "/work" })).toBe("[/work]");
  });

  test("replaces every occurrence", () => {
    expect(interpolate("{{a}}-{{a}}-{{ a }}", { a: "x" })).toBe("x-x-x");
  });

  test("accepts dotted and dashed names as one variable", () => {
    expect(interpolate("{{user.name}} {{os-release}}", { "user.name": "ada", "os-release": "linux" })).toBe(
      "ada linux",
    );
  });

  test("leaves text without placeholders unchanged", () => {
    expect(interpolate("plain { braces } and {single}", {})).toBe("plain { braces } and {single}");
  });

  test("an empty-string value is a known variable", () => {
    expect(interpolate("[{{empty}}]", { empty: "" })).toBe("[]");
  });

  test("inserts values literally: no re-interpolation and no replacement patterns", () => {
    expect(interpolate("{{a}} {{d}}", { a: "{{b}}", b: "never", d: "$& $1 $$" })).toBe("{{b}} $& $1 $$");
  });

  describe("an unknown variable", () => {
    const failure = (): PromptError =>
      thrown(
        () => interpolate("Hello {{ user }} in {{cwd}}", { cwd: "/w", model: "m" }, "prompt section greeting"),
        PromptError,
      );

    test("throws PromptError 'unknown-variable'", () => {
      expect(failure().code).toBe("unknown-variable");
    });

    test("the message names the variable, where it appeared and the known variables", () => {
      const { message } = failure();
      expect(message).toContain("{{user}}");
      expect(message).toContain("prompt section greeting");
      expect(message).toContain("cwd, model");
    });

    test("the message says there are none when no variables are defined", () => {
      expect(thrown(() => interpolate("{{x}}", {}), PromptError).message).toContain("none");
    });

    test("inherited object properties are not variables", () => {
      expect(thrown(() => interpolate("{{toString}}", {}), PromptError).code).toBe("unknown-variable");
      expect(thrown(() => interpolate("{{constructor}}", { cwd: "/" }), PromptError).code).toBe("unknown-variable");
    });
  });
});

describe("renderSections", () => {
  test("renders sections in order, then name, joined by one blank line", () => {
    const out = renderSections([section("rules", 10, "Be brief."), section("b", 0, "B."), section("a", 0, "A.")], {});
    expect(out).toBe("A.\n\nB.\n\nBe brief.");
  });

  test("interpolates every section", () => {
    const out = renderSections([section("id", 0, "You are {{name}}."), section("cwd", 1, "Work in {{ cwd }}.")], {
      name: "Keelson",
      cwd: "/work",
    });
    expect(out).toBe("You are Keelson.\n\nWork in /work.");
  });

  test("trims each section so the separator stays exactly one blank line", () => {
    const out = renderSections([section("a", 0, "\n  A.  \n\n"), section("b", 1, "\tB.\n")], {});
    expect(out).toBe("A.\n\nB.");
  });

  test("keeps a section's inner line breaks", () => {
    expect(renderSections([section("a", 0, "line 1\n\nline 2")], {})).toBe("line 1\n\nline 2");
  });

  test("drops empty and whitespace-only sections without leaving stray separators", () => {
    const out = renderSections(
      [section("a", 0, "A."), section("empty", 1, ""), section("blank", 2, " \n\t "), section("b", 3, "B.")],
      {},
    );
    expect(out).toBe("A.\n\nB.");
  });

  test("drops a section whose text interpolates to nothing", () => {
    expect(renderSections([section("a", 0, "A."), section("opt", 1, "{{extra}}")], { extra: "" })).toBe("A.");
  });

  test("renders no sections as the empty string", () => {
    expect(renderSections([], {})).toBe("");
  });

  test("an unknown variable throws 'unknown-variable' naming the section", () => {
    const error = thrown(
      () => renderSections([section("ok", 0, "fine"), section("greeting", 1, "Hi {{who}}")], { cwd: "/" }),
      PromptError,
    );
    expect(error.code).toBe("unknown-variable");
    expect(error.message).toContain("greeting");
    expect(error.message).toContain("{{who}}");
    expect(error.message).toContain("cwd");
  });

  test("an unknown variable in an otherwise empty-looking section still throws", () => {
    expect(thrown(() => renderSections([section("opt", 0, "  {{missing}}  ")], {}), PromptError).code).toBe(
      "unknown-variable",
    );
  });

  test("does not reorder or modify its input array", () => {
    const input = [section("b", 1, "B"), section("a", 0, "A")];
    renderSections(input, {});
    expect(input.map((s) => s.name)).toEqual(["b", "a"]);
  });

  test("is deterministic: the same sections in any input order give the same bytes", () => {
    const sectionsArb = fc.uniqueArray(
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 6 }),
        order: fc.integer({ min: -5, max: 5 }),
        text: fc.string({ maxLength: 12 }).map((t) => t.replaceAll("{", "(")),
      }),
      { selector: (s) => s.name, maxLength: 8 },
    );
    fc.assert(
      fc.property(
        sectionsArb.chain((sections) =>
          fc.tuple(
            fc.constant(sections),
            fc.shuffledSubarray(sections, { minLength: sections.length, maxLength: sections.length }),
          ),
        ),
        ([sections, shuffled]) => {
          const once = renderSections(sections, {});
          expect(renderSections(sections, {})).toBe(once);
          expect(renderSections(shuffled, {})).toBe(once);
        },
      ),
    );
  });
});
