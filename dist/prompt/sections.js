import { PromptError } from "./types.js";
export class PromptSections {
    parent;
    #own = new Map();
    constructor(parent) {
        this.parent = parent;
    }
    /** Adds or replaces the section named `section.name`; the disposer removes that very section. */
    set(section) {
        validateSection(section);
        const frozen = Object.freeze({ name: section.name, order: section.order, text: section.text });
        this.#own.set(frozen.name, frozen);
        return () => {
            if (this.#own.get(frozen.name) === frozen)
                this.#own.delete(frozen.name);
        };
    }
    /** Parent sections overridden by own ones with the same name, sorted by order then name. */
    list() {
        const merged = new Map();
        for (const s of this.parent?.list() ?? [])
            merged.set(s.name, s);
        for (const s of this.#own.values())
            merged.set(s.name, s);
        return sortSections([...merged.values()]);
    }
}
/** Throws `PromptError('invalid-section')` unless `section` has a non-empty name, a finite order and string text. */
export function validateSection(section) {
    if (typeof section !== "object" || section === null)
        throw new PromptError("invalid-section", `a prompt section must be an object, got ${section === null ? "null" : typeof section}`);
    const s = section;
    if (typeof s.name !== "string" || s.name === "")
        throw new PromptError("invalid-section", "a prompt section needs a non-empty name");
    if (typeof s.order !== "number" || !Number.isFinite(s.order))
        throw new PromptError("invalid-section", `prompt section ${s.name}: order must be a finite number`);
    if (typeof s.text !== "string")
        throw new PromptError("invalid-section", `prompt section ${s.name}: text must be a string`);
}
export function sortSections(sections) {
    return [...sections].sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
//# sourceMappingURL=sections.js.map