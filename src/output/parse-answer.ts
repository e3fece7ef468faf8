// parseAnswer: a final answer's text as the JSON value it should be. Native structured output
// yields bare JSON; a model in JSON mode or without a native mechanism sometimes wraps it in one
// Markdown code fence, which is accepted (and only that: prose around the JSON is an issue, so
// the repair round can say so). Pure; never throws.
import { errorMessage } from "../errors/index.js";
import type { JsonValue } from "../json/index.js";
import { boundLine } from "./bounds.js";

const FENCED = /^```[A-Za-z0-9_-]*[^\S\n]*\n([\s\S]*?)\n?```$/;

export type ParsedAnswer =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly issue: string };

export function parseAnswer(text: string): ParsedAnswer {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, issue: "(root): the answer is empty; expected a JSON object" };
  const body = FENCED.exec(trimmed)?.[1]?.trim() ?? trimmed;
  try {
    return { ok: true, value: JSON.parse(body) as JsonValue };
  } catch (error) {
    const why = errorMessage(error);
    return { ok: false, issue: boundLine(`(root): the answer is not valid JSON (${why})`) };
  }
}
