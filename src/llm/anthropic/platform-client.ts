// The Anthropic Messages client for a platform: the first-party API (`@anthropic-ai/sdk`), Amazon
// Bedrock (`@anthropic-ai/bedrock-sdk`) or Google Vertex AI (`@anthropic-ai/vertex-sdk`). The one
// place that loads these SDKs — each an optional peer dependency, loaded on first use by
// `loadOptionalPackage` (a MissingPackageError naming the install command when absent), so an
// application that never talks to Bedrock or Vertex needs neither installed. The platform SDKs extend the core
// SDK's client: the same `messages.create`, the same body; they move `model` (and, for Bedrock,
// `stream`) into the URL and add `anthropic_version` to the body, then sign the request with the
// platform's credentials (AWS SigV4 from the AWS chain, or a Google OAuth token from ADC).
import type Anthropic from "@anthropic-ai/sdk";
import { loadOptionalPackage } from "../../errors/index.js";
import { ProviderError } from "../types.js";

export type AnthropicPlatform = "anthropic" | "bedrock" | "vertex";

export type AnthropicSdk = typeof import("@anthropic-ai/sdk");

/** `@anthropic-ai/sdk`, imported once, on first use (also the error classes every platform throws). */
export const anthropicSdk = (): Promise<AnthropicSdk> =>
  loadOptionalPackage<AnthropicSdk>("@anthropic-ai/sdk", "the Anthropic provider (AnthropicProvider)");

/** What a client is made from: the core SDK's options plus the platform SDK's own (region, credentials, …). */
export interface PlatformClientOptions {
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly platformOptions?: Readonly<Record<string, unknown>>;
}

/** A new client for `platform`, SDK retries off (the loop retries and logs each attempt). */
export async function anthropicClient(platform: AnthropicPlatform, options: PlatformClientOptions): Promise<Anthropic> {
  const base = { ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }), maxRetries: 0 };
  if (platform === "anthropic") {
    const sdk = await anthropicSdk();
    return new sdk.default({ apiKey: options.apiKey, ...base });
  }
  const purpose = `Anthropic on ${platform === "bedrock" ? "Bedrock" : "Vertex"} (AnthropicProvider platform "${platform}")`;
  const make =
    platform === "bedrock"
      ? (await loadOptionalPackage<typeof import("@anthropic-ai/bedrock-sdk")>("@anthropic-ai/bedrock-sdk", purpose))
          .AnthropicBedrock
      : (await loadOptionalPackage<typeof import("@anthropic-ai/vertex-sdk")>("@anthropic-ai/vertex-sdk", purpose))
          .AnthropicVertex;
  try {
    return new make({ ...options.platformOptions, ...base }) as unknown as Anthropic;
  } catch (error) {
    // The SDK refused its configuration (e.g. Vertex without a region).
    throw new ProviderError("auth", `could not set up Anthropic on ${platform}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The platform's default endpoint, for messages before the client exists (the SDKs' own rules). */
export function platformBaseURL(platform: AnthropicPlatform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === "bedrock")
    return env.ANTHROPIC_BEDROCK_BASE_URL || `https://bedrock-runtime.${env.AWS_REGION || "us-east-1"}.amazonaws.com`;
  if (platform === "vertex") {
    if (env.ANTHROPIC_VERTEX_BASE_URL) return env.ANTHROPIC_VERTEX_BASE_URL;
    const region = env.CLOUD_ML_REGION || "global";
    return region === "global"
      ? "https://aiplatform.googleapis.com/v1"
      : `https://${region}-aiplatform.googleapis.com/v1`;
  }
  return "https://api.anthropic.com";
}
