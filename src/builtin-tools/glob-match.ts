// Glob matching in time linear in the path: `compileGlob` parses a pattern (the language of
// glob-pattern.ts — `*` within one segment, `**` across segments, `**/` also zero directories,
// `?` one character but `/`, `{a,b}` nestable alternatives, `\` escapes, everything else literal)
// into a Thompson NFA and `matches` simulates it over the path's code points, tracking the set of
// live states. Cost is O(pattern × path) whatever the pattern: the backtracking RegExp that
// `globToRegExp` builds takes exponential time on patterns like `**a**a**a…**b`, and a glob is
// model-supplied input.
import { ToolFailure } from "./types.js";

/** A compiled glob; `matches` is a full match against a `/`-separated relative path. */
export interface GlobMatcher {
  readonly pattern: string;
  matches(path: string): boolean;
}

type GlobNode =
  | { readonly kind: "literal"; readonly char: string }
  | { readonly kind: "one" } // `?`: one code point but `/`
  | { readonly kind: "star" } // `*`: any run of code points without `/`
  | { readonly kind: "any" } // `**` not forming `**/`: any run of code points
  | { readonly kind: "dirs" } // `**/` at a segment start: zero or more `name/`
  | { readonly kind: "alternatives"; readonly options: readonly GlobNode[][] };

/** Parses `pattern`; throws ToolFailure `bad-pattern` for an unclosed `{`. */
export function compileGlob(pattern: string): GlobMatcher {
  const parser = { pattern, at: 0 };
  const sequence = parseSequence(parser, false);
  const nfa = new Nfa();
  const start = nfa.sequence(sequence, nfa.state({ kind: "accept" }));
  return { pattern, matches: (path) => nfa.run(start, path) };
}

interface Parser {
  readonly pattern: string;
  at: number;
}

/** Nodes up to the end, or (inside braces) up to the `,` or `}` that ends this alternative. */
function parseSequence(parser: Parser, inBraces: boolean): GlobNode[] {
  const { pattern } = parser;
  const nodes: GlobNode[] = [];
  while (parser.at < pattern.length) {
    const i = parser.at;
    const c = pattern[i]!;
    if (inBraces && (c === "," || c === "}")) return nodes;
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        const atSegmentStart = i === 0 || pattern[i - 1] === "/";
        if (atSegmentStart && pattern[i + 2] === "/") {
          nodes.push({ kind: "dirs" });
          parser.at = i + 3;
        } else {
          nodes.push({ kind: "any" });
          parser.at = i + 2;
        }
      } else {
        nodes.push({ kind: "star" });
        parser.at = i + 1;
      }
    } else if (c === "?") {
      nodes.push({ kind: "one" });
      parser.at = i + 1;
    } else if (c === "{") {
      parser.at = i + 1;
      nodes.push(parseAlternatives(parser));
    } else if (c === "\\" && i + 1 < pattern.length) {
      const char = codePointAt(pattern, i + 1);
      nodes.push({ kind: "literal", char });
      parser.at = i + 1 + char.length;
    } else {
      const char = codePointAt(pattern, i);
      nodes.push({ kind: "literal", char });
      parser.at = i + char.length;
    }
  }
  return nodes;
}

/** After a `{`: alternatives separated by `,` up to the matching `}`. */
function parseAlternatives(parser: Parser): GlobNode {
  const options: GlobNode[][] = [];
  for (;;) {
    options.push(parseSequence(parser, true));
    const c = parser.pattern[parser.at];
    if (c === undefined)
      throw new ToolFailure("bad-pattern", `glob ${JSON.stringify(parser.pattern)} has an unclosed {`);
    parser.at++;
    if (c === "}") return { kind: "alternatives", options };
  }
}

function codePointAt(text: string, index: number): string {
  return String.fromCodePoint(text.codePointAt(index)!);
}

type NfaState =
  | { readonly kind: "accept" }
  | { kind: "split"; next: number[] }
  | { readonly kind: "consume"; readonly test: "char" | "not-slash" | "any"; readonly char?: string; next: number };

/** States in an array, edges by index; every cycle passes through a `consume` state. */
class Nfa {
  readonly #states: NfaState[] = [];

  state(state: NfaState): number {
    this.#states.push(state);
    return this.#states.length - 1;
  }

  /** The start state of `nodes` followed by the state `next` (built back to front). */
  sequence(nodes: readonly GlobNode[], next: number): number {
    let start = next;
    for (let i = nodes.length - 1; i >= 0; i--) start = this.#node(nodes[i]!, start);
    return start;
  }

  #node(node: GlobNode, next: number): number {
    switch (node.kind) {
      case "literal":
        return this.state({ kind: "consume", test: "char", char: node.char, next });
      case "one":
        return this.state({ kind: "consume", test: "not-slash", next });
      case "star":
      case "any":
        return this.#loop(node.kind === "star" ? "not-slash" : "any", next);
      case "dirs": {
        // (?:[^/]+/)* — a loop over: one non-slash, any more non-slashes, a slash.
        const split = this.state({ kind: "split", next: [] });
        const slash = this.state({ kind: "consume", test: "char", char: "/", next: split });
        const first = this.state({ kind: "consume", test: "not-slash", next: this.#loop("not-slash", slash) });
        (this.#states[split] as { next: number[] }).next = [first, next];
        return split;
      }
      case "alternatives":
        return this.state({ kind: "split", next: node.options.map((option) => this.sequence(option, next)) });
    }
  }

  /** Zero or more code points passing `test`, then `next`. */
  #loop(test: "not-slash" | "any", next: number): number {
    const split = this.state({ kind: "split", next: [] });
    const step = this.state({ kind: "consume", test, next: split });
    (this.#states[split] as { next: number[] }).next = [step, next];
    return split;
  }

  /** Whether the NFA from `start` accepts all of `path`: one pass, a set of live states. */
  run(start: number, path: string): boolean {
    const seen = new Int32Array(this.#states.length).fill(-1);
    let live: number[] = [];
    this.#add(live, start, seen, 0);
    let generation = 0;
    for (const char of path) {
      generation++;
      const next: number[] = [];
      for (const index of live) {
        const state = this.#states[index]!;
        if (state.kind === "consume" && passes(state, char)) this.#add(next, state.next, seen, generation);
      }
      if (next.length === 0) return false;
      live = next;
    }
    return live.some((index) => this.#states[index]!.kind === "accept");
  }

  /** Adds `index` and everything reachable from it without consuming (the ε-closure). */
  #add(into: number[], index: number, seen: Int32Array, generation: number): void {
    const stack = [index];
    while (stack.length > 0) {
      const current = stack.pop()!;
      if (seen[current] === generation) continue;
      seen[current] = generation;
      const state = this.#states[current]!;
      if (state.kind === "split") for (let i = state.next.length - 1; i >= 0; i--) stack.push(state.next[i]!);
      else into.push(current);
    }
  }
}

function passes(state: { readonly test: "char" | "not-slash" | "any"; readonly char?: string }, char: string): boolean {
  return state.test === "any" || (state.test === "char" ? char === state.char : char !== "/");
}
