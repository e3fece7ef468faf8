import type { Dispose } from "../hooks/index.js";
import { type PromptSection } from "./types.js";
export declare class PromptSections {
    #private;
    readonly parent: PromptSections | undefined;
    constructor(parent?: PromptSections);
    /** Adds or replaces the section named `section.name`; the disposer removes that very section. */
    set(section: PromptSection): Dispose;
    /** Parent sections overridden by own ones with the same name, sorted by order then name. */
    list(): PromptSection[];
}
/** Throws `PromptError('invalid-section')` unless `section` has a non-empty name, a finite order and string text. */
export declare function validateSection(section: unknown): asserts section is PromptSection;
export declare function sortSections(sections: readonly PromptSection[]): PromptSection[];
