// SKILL.md parsing: a `---` fenced YAML frontmatter (parsed with `yaml`) followed by the markdown
// body. Line endings are normalized to `\n` and a BOM is dropped, so the same file renders the
// same bytes on every platform.
import { parse } from "yaml";
export function parseFrontmatter(text) {
    const lines = text
        .replace(/^\uFEFF/, "")
        .replace(/\r\n?/g, "\n")
        .split("\n");
    if (lines[0]?.trimEnd() !== "---")
        return { ok: false, problem: "it does not start with a `---` frontmatter fence" };
    const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
    if (close < 0)
        return { ok: false, problem: "its frontmatter has no closing `---` fence" };
    let data;
    try {
        data = parse(lines.slice(1, close).join("\n"));
    }
    catch (error) {
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
//# sourceMappingURL=frontmatter.js.map