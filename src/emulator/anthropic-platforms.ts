// Claude on Amazon Bedrock and Google Vertex AI, as the emulator serves them: the routes the
// platform SDKs post to, the Messages body they send (`model` — and on Bedrock `stream` — moved
// into the URL, `anthropic_version` added), and Bedrock's binary response stream. Bedrock:
// POST /model/<id>/invoke-with-response-stream (or /invoke), answered as
// `application/vnd.amazon.eventstream` frames whose `chunk` payload is `{"bytes": base64(event
// JSON)}`. Vertex: POST [/v1]/projects/<p>/locations/<r>/publishers/anthropic/models/<model>:
// streamRawPredict (or :rawPredict), answered with the ordinary Anthropic SSE stream.
import { crc32 } from "node:zlib";
import { WireError } from "./types.js";
import { isObj } from "./wire-json.js";

export type AnthropicPlatform = "bedrock" | "vertex";

export interface PlatformRoute {
  readonly platform: AnthropicPlatform;
  readonly model: string;
  readonly stream: boolean;
}

const BEDROCK = /^\/model\/([^/]+)\/(invoke-with-response-stream|invoke)$/;
const VERTEX =
  /^(?:\/v1)?\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(streamRawPredict|rawPredict)$/;

/** The platform route `path` names (POST only), or `undefined`. */
export function platformRoute(method: string, path: string): PlatformRoute | undefined {
  if (method !== "POST") return undefined;
  const bedrock = BEDROCK.exec(path);
  if (bedrock !== null)
    return {
      platform: "bedrock",
      model: decodeURIComponent(bedrock[1]!),
      stream: bedrock[2] === "invoke-with-response-stream",
    };
  const vertex = VERTEX.exec(path);
  if (vertex !== null)
    return { platform: "vertex", model: decodeURIComponent(vertex[1]!), stream: vertex[2] === "streamRawPredict" };
  return undefined;
}

/**
 * The Messages body a platform request stands for: the model (and Bedrock's stream flag) put back
 * from the URL. The platforms require `anthropic_version` in the body and refuse a `model` there.
 */
export function platformBody(body: unknown, route: PlatformRoute): unknown {
  if (!isObj(body)) return body;
  if (typeof body.anthropic_version !== "string")
    throw new WireError("invalid-request", "anthropic_version: Field required");
  if (body.model !== undefined) throw new WireError("invalid-request", "model: Extra inputs are not permitted");
  const { anthropic_version: _version, ...rest } = body;
  return route.platform === "bedrock"
    ? { model: route.model, ...rest, stream: route.stream }
    : { model: route.model, ...rest };
}

/**
 * One AWS event-stream message carrying `data` (an Anthropic stream event's JSON) as Bedrock's
 * `chunk` event: prelude (total and headers length, CRC32), string headers, the JSON payload
 * `{"bytes": base64(data)}`, message CRC32.
 */
export function bedrockChunkFrame(data: string): Buffer {
  const headers = Buffer.concat(
    [
      [":event-type", "chunk"],
      [":content-type", "application/json"],
      [":message-type", "event"],
    ].map(([name, value]) => header(name!, value!)),
  );
  const payload = Buffer.from(JSON.stringify({ bytes: Buffer.from(data, "utf8").toString("base64") }), "utf8");
  const total = 12 + headers.length + payload.length + 4;
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headers.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude), 0);
  const body = Buffer.concat([prelude, preludeCrc, headers, payload]);
  const messageCrc = Buffer.alloc(4);
  messageCrc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, messageCrc]);
}

function header(name: string, value: string): Buffer {
  const nameBytes = Buffer.from(name, "utf8");
  const valueBytes = Buffer.from(value, "utf8");
  const out = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
  let at = out.writeUInt8(nameBytes.length, 0);
  at += nameBytes.copy(out, at);
  at = out.writeUInt8(7, at); // string
  at = out.writeUInt16BE(valueBytes.length, at);
  valueBytes.copy(out, at);
  return out;
}
