// parseChatRequest (issue #22 §2): a useChat POST body checked at the boundary — the last
// message must be the user's; its text and data-URL images are the prompt; anything else is a
// typed `invalid-request` (HTTP 400).
import { describe, expect, test } from "vitest";
import { parseChatRequest } from "../../src/serve/index.js";

const body = (parts: unknown[], role = "user") => ({
  id: "chat-7",
  trigger: "submit-message",
  messages: [
    { id: "a", role: "user", parts: [{ type: "text", text: "earlier" }] },
    { id: "b", role, parts },
  ],
});

describe("parseChatRequest", () => {
  test("the last user message's text and images, with the chat id", () => {
    expect(
      parseChatRequest(
        body([
          { type: "text", text: "look" },
          { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA" },
        ]),
      ),
    ).toEqual({
      chatId: "chat-7",
      content: [
        { type: "text", text: "look" },
        { type: "image", mediaType: "image/png", data: "AAAA" },
      ],
    });
  });

  test("bodies without a usable last user message are invalid-request (400)", () => {
    const bad: unknown[] = [
      null,
      "text",
      { messages: [] },
      body([{ type: "text", text: "x" }], "assistant"),
      body([{ type: "text", text: "  " }]),
      body([{ type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,AA" }]),
      body([{ type: "file", mediaType: "image/png", url: "https://example.com/cat.png" }]),
      body([{ type: "tool-x", toolCallId: "1" }]),
      { messages: [{ role: "user", parts: "no" }] },
      { ...body([{ type: "text", text: "again" }]), trigger: "regenerate-message" },
    ];
    for (const value of bad)
      expect(() => parseChatRequest(value), JSON.stringify(value)).toThrow(
        expect.objectContaining({ name: "ServeError", code: "invalid-request", status: 400 }),
      );
  });
});
