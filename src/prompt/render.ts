// Rendering sections to the one system string, and the per-step assembly through the hook.
import type { HookBus } from "../hooks/index.js";
import { sortSections, validateSection } from "./sections.js";
import type { PromptHooks, PromptSection, PromptVars } from "./types.js";
import { PromptError } from "./types.js";

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** Replaces every `{{name}}` with `vars[name]`; an unknown name throws `PromptError('unknown-variable')`. */
export function interpolate(text: string, vars: PromptVars, where = "text"): string {
  return text.replace(PLACEHOLDER, (_match, name: string) => {
    if (!Object.hasOwn(vars, name)) {
      const known = Object.keys(vars).sort().join(", ") || "none";
      throw new PromptError("unknown-variable", `${where}: unknown prompt variable {{${name}}} (known: ${known})`);
    }
    return vars[name]!;
  });
}

/** Sorted, interpolated, empty sections dropped, joined by a blank line. */
export function renderSections(sections: readonly PromptSection[], vars: PromptVars): string {
  return sortSections(sections)
    .map((s) => interpolate(s.text, vars, `prompt section ${s.name}`).trim())
    .filter((t) => t !== "")
    .join("\n\n");
}

/**
 * The last rendering of each frozen section list (`PromptSections.list()` hands out the same
 * frozen array until a section changes), with the variables it used: a step whose sections and
 * variables are unchanged reuses the text instead of sorting and interpolating again.
 */
const rendered = new WeakMap<readonly PromptSection[], { readonly vars: PromptVars; readonly text: string }>();

const sameVars = (a: PromptVars, b: PromptVars): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
};

/**
 * The text `assembleSystemPrompt` would give, when it is known without running anything: no
 * `system-prompt/assemble` listener, and the same frozen sections and variables as the last
 * rendering. Otherwise undefined (then await `assembleSystemPrompt`).
 */
export function renderedSystemPrompt(
  bus: HookBus<PromptHooks>,
  sections: readonly PromptSection[],
  vars: PromptVars,
): string | undefined {
  if (!Object.isFrozen(sections) || bus.count("system-prompt/assemble") > 0) return undefined;
  const last = rendered.get(sections);
  return last !== undefined && (last.vars === vars || sameVars(last.vars, vars)) ? last.text : undefined;
}

/** Runs the `system-prompt/assemble` waterfall over `sections` and renders the result. */
export async function assembleSystemPrompt(
  bus: HookBus<PromptHooks>,
  sections: readonly PromptSection[],
  vars: PromptVars,
): Promise<string> {
  const frozen = Object.isFrozen(sections) ? sections : Object.freeze([...sections]);
  // No listener: the sections are what the waterfall would return (no payload, no copy of the vars).
  const assembled =
    bus.count("system-prompt/assemble") === 0
      ? frozen
      : await bus.waterfall(
          "system-prompt/assemble",
          { sections: frozen, vars: Object.freeze({ ...vars }) },
          () => frozen,
        );
  if (assembled === frozen && Object.isFrozen(frozen)) {
    const last = rendered.get(frozen);
    if (last !== undefined && sameVars(last.vars, vars)) return last.text;
    for (const section of frozen) validateSection(section);
    const text = renderSections(frozen, vars);
    rendered.set(frozen, { vars: Object.isFrozen(vars) ? vars : { ...vars }, text }); // frozen: kept, compared by identity
    return text;
  }
  if (!Array.isArray(assembled))
    throw new PromptError(
      "invalid-section",
      "a system-prompt/assemble listener returned something other than a section list",
    );
  for (const section of assembled) validateSection(section);
  return renderSections(assembled, vars);
}
