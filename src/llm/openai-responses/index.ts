// The OpenAI Responses adapter (official `openai` SDK, streaming, stateless: store false, no
// previous_response_id; reasoning replayed from its logged encrypted items).
export {
  OpenAIResponsesProvider,
  type OpenAIResponsesOptions,
  responsesWireOptions,
} from "./adapter.js";
export { normalizeResponsesUsage, ResponsesEventMapper, responseFailure } from "./stream.js";
export {
  DEFAULT_RESPONSES_WIRE,
  isReasoningModel,
  RESPONSES_API,
  type ResponsesWireOptions,
  responsesRequestBody,
} from "./wire.js";
