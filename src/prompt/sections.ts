// PromptSections: a registry of system-prompt sections. A registry may have a parent (the
// global one); listing merges them, the child's section winning by name.
import type { Dispose } from "../hooks/index.js";
import { PromptError, type PromptSection } from "./types.js";

export class PromptSections {
  readonly parent: PromptSections | undefined;
  readonly #own = new Map<string, PromptSection>();
  /** Bumped by every change of the own sections. */
  #changes = 0;
  /** The last `list()` and the `version` it was made at (each step lists the sections). */
  #listed: { readonly version: number; readonly list: readonly PromptSection[] } | undefined;

  constructor(parent?: PromptSections) {
    this.parent = parent;
  }

  /** Adds or replaces the section named `section.name`; the disposer removes that very section. */
  set(section: PromptSection): Dispose {
    validateSection(section);
    const frozen = Object.freeze({ name: section.name, order: section.order, text: section.text });
    this.#own.set(frozen.name, frozen);
    this.#changes++;
    return () => {
      if (this.#own.get(frozen.name) === frozen) {
        this.#own.delete(frozen.name);
        this.#changes++;
      }
    };
  }

  /** Grows with every change of this registry's or an ancestor's sections. */
  get version(): number {
    return this.#changes + (this.parent?.version ?? 0);
  }

  /** Parent sections overridden by own ones with the same name, sorted by order then name (a fresh array). */
  list(): PromptSection[] {
    return [...this.snapshot()];
  }

  /**
   * `list()` as a frozen array, the same one until a section of this registry or an ancestor
   * changes: what each step of the loop reads (and what lets it reuse the rendered prompt).
   */
  snapshot(): readonly PromptSection[] {
    const version = this.version;
    if (this.#listed?.version === version) return this.#listed.list;
    const merged = new Map<string, PromptSection>();
    for (const s of this.parent?.snapshot() ?? []) merged.set(s.name, s);
    for (const s of this.#own.values()) merged.set(s.name, s);
    const list = Object.freeze(sortSections([...merged.values()]));
    this.#listed = { version, list };
    return list;
  }
}

/** Throws `PromptError('invalid-section')` unless `section` has a non-empty name, a finite order and string text. */
export function validateSection(section: unknown): asserts section is PromptSection {
  if (typeof section !== "object" || section === null)
    throw new PromptError(
      "invalid-section",
      `a prompt section must be an object, got ${section === null ? "null" : typeof section}`,
    );
  const s = section as Record<string, unknown>;
  if (typeof s.name !== "string" || s.name === "")
    throw new PromptError("invalid-section", "a prompt section needs a non-empty name");
  if (typeof s.order !== "number" || !Number.isFinite(s.order))
    throw new PromptError("invalid-section", `prompt section ${s.name}: order must be a finite number`);
  if (typeof s.text !== "string")
    throw new PromptError("invalid-section", `prompt section ${s.name}: text must be a string`);
}

export function sortSections(sections: readonly PromptSection[]): PromptSection[] {
  return [...sections].sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
