// What an image in a prompt must be before it is logged: base64 data of a media type every wire
// takes (Anthropic Messages, chat completions, Responses, Gemini all accept PNG, JPEG, GIF and
// WebP), whose bytes start as that type's do (a file's signature: a JPEG sent as image/png, or
// bytes of no image at all, is refused by the providers), and no larger than the smallest
// provider limit (Anthropic's: 5 MiB of base64 per image). A logged prompt is in every later
// request of its session, so an image a provider refuses would fail each of them; it is refused
// at the door instead. Pure (no Buffer: keelson/serve, which checks a page's images, is bundled
// for browsers).

/** The media types a prompt's image may have. */
export const PROMPT_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** The most base64 characters a prompt's image may have (Anthropic refuses an image over 5 MiB of base64). */
export const MAX_PROMPT_IMAGE_BASE64 = 5 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes each type's files start with, as (offset, bytes); WebP is a RIFF file of form WEBP. */
const SIGNATURES: Readonly<Record<string, readonly (readonly [number, readonly number[]])[][]>> = {
  "image/png": [[[0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]]]],
  "image/jpeg": [[[0, [0xff, 0xd8, 0xff]]]],
  "image/gif": [[[0, [0x47, 0x49, 0x46, 0x38, 0x37, 0x61]]], [[0, [0x47, 0x49, 0x46, 0x38, 0x39, 0x61]]]],
  "image/webp": [
    [
      [0, [0x52, 0x49, 0x46, 0x46]],
      [8, [0x57, 0x45, 0x42, 0x50]],
    ],
  ],
};

/** Why an image with `mediaType` and `data` cannot be a prompt's, or undefined when it can. */
export function promptImageProblem(mediaType: string, data: string): string | undefined {
  if (!PROMPT_IMAGE_TYPES.includes(mediaType))
    return `its media type ${JSON.stringify(mediaType.slice(0, 60))} is not one of ${PROMPT_IMAGE_TYPES.join(", ")}`;
  if (data.length > MAX_PROMPT_IMAGE_BASE64)
    return `its data is ${data.length} characters of base64, over the ${MAX_PROMPT_IMAGE_BASE64} a provider takes`;
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) return "its data is not base64";
  const head = decodeHead(data);
  const alternatives = SIGNATURES[mediaType] ?? [];
  if (!alternatives.some((signature) => signature.every(([at, bytes]) => bytes.every((b, i) => head[at + i] === b))))
    return `its data does not start as a ${mediaType.slice("image/".length).toUpperCase()} file does (another type, or no image)`;
  return undefined;
}

/** The first bytes base64 `data` (checked already) decodes to: its first 16 characters, 12 bytes. */
function decodeHead(data: string): number[] {
  const head = atob(data.slice(0, 16)); // atob: Node and browsers alike (keelson/serve is bundled)
  return Array.from(head, (char) => char.charCodeAt(0));
}
