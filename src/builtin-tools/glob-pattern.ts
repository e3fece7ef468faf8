// The glob language as a RegExp: `globToRegExp` converts `*` (within one path segment), `**` (any
// number of segments), `?` (one character but `/`) and `{a,b}` (alternatives, nestable) into an
// anchored RegExp over `/`-separated relative paths; every other character is literal.
// The tools do not use it: a backtracking RegExp takes exponential time on patterns such as
// `**a**a**a…**b`. They match with `compileGlob` (glob-match.ts), linear in the path. This stays
// as the public reference form of the language (and the oracle the matcher is tested against);
// `**` here does not cross a line terminator inside a name (`.` semantics), the matcher's does.
import { ToolFailure } from "./types.js";

const SPECIAL = /[\\^$.*+?()[\]{}|/]/;

export function globToRegExp(pattern: string): RegExp {
  let source = "";
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        const atSegmentStart = i === 0 || pattern[i - 1] === "/";
        i++;
        if (atSegmentStart && pattern[i + 1] === "/") {
          source += "(?:[^/]+/)*"; // `**/`: zero or more whole directories
          i++;
        } else {
          source += ".*";
        }
      } else {
        source += "[^/]*";
      }
    } else if (c === "?") source += "[^/]";
    else if (c === "{") {
      depth++;
      source += "(?:";
    } else if (c === "}" && depth > 0) {
      depth--;
      source += ")";
    } else if (c === "," && depth > 0) source += "|";
    else if (c === "\\" && i + 1 < pattern.length) source += literal(pattern[++i]!);
    else source += literal(c);
  }
  if (depth > 0) throw new ToolFailure("bad-pattern", `glob ${JSON.stringify(pattern)} has an unclosed {`);
  return new RegExp(`^${source}$`, "u");
}

function literal(c: string): string {
  return SPECIAL.test(c) ? `\\${c}` : c;
}
