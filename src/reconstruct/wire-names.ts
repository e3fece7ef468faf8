// The wires `keelson requests --wire` can print, by name — apart from wire-payload.ts, which
// loads the adapters' modules, so that listing the choices loads none. Bedrock and Vertex send
// the anthropic body less what their SDKs move into the URL (see the llm README).
export type Wire =
  | "anthropic"
  | "openai"
  | "responses"
  | "deepseek"
  | "gemini"
  | "vllm"
  | "llamacpp"
  | "ollama"
  | "lmstudio";

export const WIRES: readonly Wire[] = [
  "anthropic",
  "openai",
  "responses",
  "deepseek",
  "gemini",
  "vllm",
  "llamacpp",
  "ollama",
  "lmstudio",
];
