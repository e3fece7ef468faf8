// What an image in a prompt must be before it is logged: base64 data of a media type every wire
// takes (Anthropic Messages, chat completions, Responses, Gemini all accept PNG, JPEG, GIF and
// WebP). A logged prompt is in every later request of its session, so an image a provider
// refuses would fail each of them; it is refused at the door instead.

/** The media types a prompt's image may have. */
export const PROMPT_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Why an image with `mediaType` and `data` cannot be a prompt's, or undefined when it can. */
export function promptImageProblem(mediaType: string, data: string): string | undefined {
  if (!PROMPT_IMAGE_TYPES.includes(mediaType))
    return `its media type ${JSON.stringify(mediaType.slice(0, 60))} is not one of ${PROMPT_IMAGE_TYPES.join(", ")}`;
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) return "its data is not base64";
  return undefined;
}
