// A tool's input schema, whatever the user wrote it in: a zod 4 schema (`zod` ^4, or `zod/v4`
// of zod 3.25+), any Standard Schema that can convert itself to JSON Schema
// (`~standard.jsonSchema`), or a plain JSON Schema object (MCP and hand-written tools). Each
// becomes the JSON Schema the model sees, plus a validator the pipeline runs on the arguments.
// Keelson imports no zod itself: a zod ≥ 4.2 schema converts itself; an older zod 4 schema
// (zod 4.0–4.1, or `zod/v4` of zod 3.25) is converted by the application's own `zod/v4/core`,
// loaded on first need (so its schema is ready asynchronously: `ToolRegistry.ready()`).
// `compileSchema` is the same compilation for any subject: structured output (src/output)
// accepts exactly what tool inputs accept through it.
import { errorMessage } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import { snapshotJson } from "../json/index.js";
import { checkJsonSchema } from "./json-schema-check.js";
import { ToolError } from "./types.js";

/** The Standard Schema interface (standardschema.dev), the part Keelson uses. */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/**
 * A JSON Schema for a tool's input (an object schema: `{ type: "object", properties, required }`).
 * Arguments are checked against the schema's common keywords (json-schema-check.ts); `validate`,
 * when given, runs after that and may refine or transform them (throw to refuse).
 */
export interface JsonSchemaInput<Args = JsonObject> {
  readonly jsonSchema: JsonObject;
  readonly validate?: (args: JsonObject) => Args;
}

/** What `ToolDefinition.input` accepts. */
export type ToolInput = StandardSchema | JsonSchemaInput<unknown> | JsonObject;

/** The arguments type `execute` receives for an input. */
export type ArgsOf<S> = S extends {
  readonly "~standard": { readonly types?: { readonly output: infer O } | undefined };
}
  ? O
  : S extends StandardSchema<unknown, infer O>
    ? O
    : S extends JsonSchemaInput<infer A>
      ? A
      : JsonObject;

/** A tool input compiled once at registration: the model-facing schema and the validator. */
export interface CompiledInput {
  /** The JSON Schema the model sees; a promise while an older zod's converter loads. */
  readonly schema: JsonObject | Promise<JsonObject>;
  /** Resolves to the arguments `execute` gets, or to the issues (one line each) that refused them. */
  validate(
    args: unknown,
  ): Promise<{ readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: string }>;
}

/**
 * Any schema compiled the way tool inputs are (structured output uses it too): the JSON Schema,
 * and a validator whose issues are a list of `path: problem` lines.
 */
export interface CompiledSchema {
  readonly schema: JsonObject | Promise<JsonObject>;
  validate(
    value: unknown,
  ): Promise<
    { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly string[] }
  >;
}

/** What a schema is for, as refusals name it, and the typed error they throw. */
export interface SchemaSubject {
  /** Opens every refusal: `tool read: its input`, `the output`. */
  readonly name: string;
  readonly refuse: (message: string, cause?: unknown) => Error;
}

/** A typed JSON-Schema input: `input: jsonSchema<{ path: string }>({ type: "object", ... }, { validate })`. */
export function jsonSchema<Args = JsonObject>(
  schema: JsonObject,
  options: { readonly validate?: (args: JsonObject) => Args } = {},
): JsonSchemaInput<Args> {
  return { jsonSchema: schema, ...(options.validate === undefined ? {} : { validate: options.validate }) };
}

/**
 * Compiled schemas by schema object and subject name: a server builds an agent per turn over the
 * same tool definitions, and converting a zod schema to JSON Schema each time was ~4% of such a
 * turn. A compiled schema is immutable (its JSON Schema is frozen when used), so agents share it.
 */
const compiled = new WeakMap<object, { readonly name: string; readonly schema: CompiledSchema }>();

export function compileInput(tool: string, input: unknown): CompiledInput {
  const subject: SchemaSubject = {
    name: `tool ${tool}: its input`,
    refuse: (message, cause) => new ToolError("invalid-tool", message, cause === undefined ? {} : { cause }),
  };
  const { schema, validate } = compileSchema(subject, input);
  return {
    schema,
    async validate(args) {
      const result = await validate(args);
      return result.ok ? result : { ok: false, issues: result.issues.join("; ") };
    },
  };
}

/**
 * A zod 4 schema, a Standard Schema with `~standard.jsonSchema`, a `jsonSchema()` input or a plain
 * JSON Schema object (which must describe an object), compiled once per schema object and
 * subject; anything else is refused with `subject.refuse`.
 */
export function compileSchema(subject: SchemaSubject, input: unknown): CompiledSchema {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw subject.refuse(`${subject.name} must be a zod 4 schema, a Standard Schema or a JSON Schema object`);
  const known = compiled.get(input);
  if (known !== undefined && known.name === subject.name) return known.schema;
  const result = compileFresh(subject, input);
  compiled.set(input, { name: subject.name, schema: result });
  return result;
}

function compileFresh(subject: SchemaSubject, input: object): CompiledSchema {
  if ("~standard" in input || "_zod" in input || "_def" in input) return compileStandard(subject, input);
  if ("jsonSchema" in input && typeof (input as JsonSchemaInput).jsonSchema === "object") {
    const { jsonSchema: schema, validate } = input as JsonSchemaInput<unknown>;
    return compileJsonSchema(subject, schema, validate);
  }
  return compileJsonSchema(subject, input as JsonObject, undefined);
}

function compileStandard(subject: SchemaSubject, input: object): CompiledSchema {
  const standard = (input as Partial<StandardSchema>)["~standard"];
  if (!("_zod" in input) && "_def" in input)
    throw subject.refuse(
      `${subject.name} is a zod 3 schema; Keelson needs a zod 4 schema — \`import { z } from "zod"\` with zod ^4, or \`import { z } from "zod/v4"\` with zod 3.25+`,
    );
  const validate = standard?.validate;
  if (typeof validate !== "function") throw subject.refuse(`${subject.name} schema has no \`~standard.validate\``);
  let schema: JsonObject | Promise<JsonObject>;
  if (standard?.jsonSchema !== undefined)
    schema = objectSchema(subject, () => standard.jsonSchema!.input({ target: "draft-2020-12" }));
  else if ("_zod" in input) schema = olderZodSchema(subject, input);
  else
    throw subject.refuse(
      `${subject.name} is a ${standard?.vendor ?? "Standard"} schema that cannot convert itself to JSON Schema (no \`~standard.jsonSchema\`); pass a JSON Schema instead`,
    );
  return {
    schema,
    async validate(value) {
      const result = await validate(value);
      if (result.issues === undefined) return { ok: true, value: result.value };
      return { ok: false, issues: result.issues.map((i) => `${pathOf(i.path)}: ${i.message}`) };
    },
  };
}

type ZodCore = { toJSONSchema(schema: unknown, params: { io: "input" }): Record<string, unknown> };
let zodCoreLoading: Promise<ZodCore> | undefined;

/**
 * zod 4.0–4.1 and `zod/v4` of 3.25 have no `~standard.jsonSchema`: convert with the app's own
 * `zod/v4/core`. When that is the zod that built the schema (a project with one zod), its
 * `.describe()` texts survive; a project holding two zod versions can lose them (each keeps its
 * own metadata registry) — upgrade to zod ≥ 4.2, whose schemas convert themselves.
 */
async function olderZodSchema(subject: SchemaSubject, input: object): Promise<JsonObject> {
  let core: ZodCore;
  try {
    const specifier = "zod/v4/core"; // resolved from the application's dependencies, not bundled
    zodCoreLoading ??= import(specifier) as Promise<ZodCore>;
    core = await zodCoreLoading;
  } catch (cause) {
    throw subject.refuse(
      `${subject.name} is a zod schema that needs \`zod/v4/core\` to convert it to JSON Schema, which cannot be loaded: ${String(cause)}`,
      cause,
    );
  }
  return objectSchema(subject, () => core.toJSONSchema(input, { io: "input" }));
}

function compileJsonSchema(
  subject: SchemaSubject,
  raw: JsonObject,
  refine: ((args: JsonObject) => unknown) | undefined,
): CompiledSchema {
  const schema = objectSchema(subject, () => raw);
  return {
    schema,
    async validate(value) {
      const problems = checkJsonSchema(schema, value as JsonValue);
      if (problems.length > 0) return { ok: false, issues: problems };
      if (refine === undefined) return { ok: true, value };
      try {
        return { ok: true, value: refine(value as JsonObject) };
      } catch (error) {
        return { ok: false, issues: [`(root): ${errorMessage(error)}`] };
      }
    },
  };
}

/** The model-facing schema: lossless JSON, no `$schema` key, and it must describe an object. */
function objectSchema(subject: SchemaSubject, produce: () => Record<string, unknown>): JsonObject {
  let json: JsonObject;
  try {
    const { $schema: _ignored, ...schema } = produce();
    json = snapshotJson(schema) as JsonObject;
  } catch (cause) {
    throw subject.refuse(`${subject.name} schema cannot be expressed as JSON Schema: ${String(cause)}`, cause);
  }
  if (json.type !== undefined && json.type !== "object")
    throw subject.refuse(`${subject.name} schema must describe an object (got type ${JSON.stringify(json.type)})`);
  return json;
}

function pathOf(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string {
  if (path === undefined || path.length === 0) return "(root)";
  return path.map((p) => String(typeof p === "object" ? p.key : p)).join(".");
}
