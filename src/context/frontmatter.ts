// SKILL.md parsing: a `---` fenced YAML frontmatter (parsed with js-yaml's core schema: YAML 1.2
// scalars, no timestamps or custom tags) followed by the markdown body. Line endings are
// normalized to `\n` and a BOM is dropped, so the same file renders the same bytes on every
// platform. (js-yaml ships real ESM with no Node built-ins, so applications can bundle it.)
import { CORE_SCHEMA, load } from "js-yaml";

export type FrontmatterResult =
  | { readonly ok: true; readonly data: unknown; readonly body: string }
  | { readonly ok: false; readonly problem: string };

export function parseFrontmatter(text: string): FrontmatterResult {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  if (lines[0]?.trimEnd() !== "---") return { ok: false, problem: "it does not start with a `---` frontmatter fence" };
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (close < 0) return { ok: false, problem: "its frontmatter has no closing `---` fence" };
  let data: unknown;
  try {
    data = load(lines.slice(1, close).join("\n"), { schema: CORE_SCHEMA });
  } catch (error) {
    return {
      ok: false,
      problem: `its frontmatter is not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
    };
  }
  const body = lines
    .slice(close + 1)
    .join("\n")
    .replace(/^\n+/, "");
  return { ok: true, data, body };
}
