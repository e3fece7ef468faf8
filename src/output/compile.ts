// compileOutput: an output schema (whatever a tool's `input` accepts) compiled once per schema
// object into the format a request carries — `{ name, schema }`, the schema converted to JSON
// Schema exactly as tool inputs are (src/tools compileSchema), `$schema` dropped, objects closed —
// and the answer check (parse, then the schema's own validator: zod's, a Standard Schema's, or
// Keelson's JSON Schema check plus `jsonSchema()`'s `validate`). The schema keeps its key order
// (property order steers the order models write fields in); header equality is canonical anyway.
import { errorMessage } from "../errors/index.js";
import { deepFreeze, type JsonObject } from "../json/index.js";
import type { OutputFormat } from "../llm/core.js";
import { compileSchema, type SchemaSubject } from "../tools/index.js";
import { boundIssues } from "./bounds.js";
import { closeObjects } from "./close-objects.js";
import { parseAnswer } from "./parse-answer.js";
import { type CompiledOutput, type OutputCheck, OutputError } from "./types.js";

/** OpenAI's rule for `json_schema.name`, kept for every provider (the header validates it too). */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const DEFAULT_NAME = "output";

const SUBJECT: SchemaSubject = {
  name: "the output",
  refuse: (message, cause) => new OutputError("invalid-schema", message, cause === undefined ? {} : { cause }),
};

const compiled = new WeakMap<object, CompiledOutput>();

/**
 * Compiles `schema`; the same schema object gives the same `CompiledOutput`. Throws
 * `OutputError('invalid-schema')` for what cannot be used; an older zod's conversion (async) may
 * instead reject `format` with it.
 */
export function compileOutput(schema: unknown): CompiledOutput {
  const known = typeof schema === "object" && schema !== null ? compiled.get(schema) : undefined;
  if (known !== undefined) return known;
  const { schema: json, validate } = compileSchema(SUBJECT, schema);
  const format = json instanceof Promise ? json.then(formatOf) : formatOf(json);
  if (format instanceof Promise) format.catch(() => {}); // awaited by the turn; never an unhandled rejection
  const result: CompiledOutput = Object.freeze({
    format,
    async check(text: string): Promise<OutputCheck> {
      const parsed = parseAnswer(text);
      if (!parsed.ok) return { ok: false, issues: boundIssues([parsed.issue]) };
      try {
        const checked = await validate(parsed.value);
        return checked.ok ? checked : { ok: false, issues: boundIssues(checked.issues) };
      } catch (error) {
        // A validator that throws (a refine that is not a Standard Schema issue) is an issue too.
        return {
          ok: false,
          issues: boundIssues([`(root): ${errorMessage(error)}`]),
        };
      }
    },
  });
  compiled.set(schema as object, result);
  return result;
}

function formatOf(json: JsonObject): OutputFormat {
  if (json.type !== "object")
    throw SUBJECT.refuse(
      `the output schema must describe an object at its root (type "object"), got ${json.type === undefined ? "no type" : `type ${JSON.stringify(json.type)}`}: wrap other values in an object`,
    );
  const title = json.title;
  const name = typeof title === "string" && NAME.test(title) ? title : DEFAULT_NAME;
  return deepFreeze({ name, schema: closeObjects(json) });
}
