import { sortSections, validateSection } from "./sections.js";
import { PromptError } from "./types.js";
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;
/** Replaces every `{{name}}` with `vars[name]`; an unknown name throws `PromptError('unknown-variable')`. */
export function interpolate(text, vars, where = "text") {
    return text.replace(PLACEHOLDER, (_match, name) => {
        if (!Object.hasOwn(vars, name)) {
            const known = Object.keys(vars).sort().join(", ") || "none";
            throw new PromptError("unknown-variable", `${where}: unknown prompt variable {{${name}}} (known: ${known})`);
        }
        return vars[name];
    });
}
/** Sorted, interpolated, empty sections dropped, joined by a blank line. */
export function renderSections(sections, vars) {
    return sortSections(sections)
        .map((s) => interpolate(s.text, vars, `prompt section ${s.name}`).trim())
        .filter((t) => t !== "")
        .join("\n\n");
}
/** Runs the `system-prompt/assemble` waterfall over `sections` and renders the result. */
export async function assembleSystemPrompt(bus, sections, vars) {
    const assembled = await bus.waterfall("system-prompt/assemble", [Object.freeze([...sections]), Object.freeze({ ...vars })], () => sections);
    if (!Array.isArray(assembled))
        throw new PromptError("invalid-section", "a system-prompt/assemble listener returned something other than a section list");
    for (const section of assembled)
        validateSection(section);
    return renderSections(assembled, vars);
}
//# sourceMappingURL=render.js.map