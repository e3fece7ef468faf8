// Public API of the messages layer (depends on nothing).
export type {
  AssistantContent,
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  Message,
  ProviderData,
  ReasoningBlock,
  Role,
  TextBlock,
  ToolCallBlock,
  ToolMessage,
  ToolResultBlock,
  ToolResultPart,
  Usage,
  UserContent,
  UserMessage,
} from "./types.js";
export {
  MessageShapeError,
  typeName,
  validateAssistantContent,
  validateMessage,
  validateMessages,
  validateToolResultContent,
  validateUserContent,
} from "./validate.js";
export { PROMPT_IMAGE_TYPES, promptImageProblem } from "./prompt-image.js";
export { contentText, messageText, previewText } from "./text.js";
