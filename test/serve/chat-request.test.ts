// parseChatRequest (issue #22 §2, #23): a useChat POST body checked at the boundary — a last
// user message's text and data-URL images are the prompt; a last assistant message's tool parts
// the page answered are decisions and responses, but only for requests the log says are pending
// (and only the answer is read, never the call); anything else is a typed `invalid-request`
// (HTTP 400), answers to nothing pending `nothing-to-answer` (409).
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
          { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" },
        ]),
      ),
    ).toEqual({
      kind: "prompt",
      chatId: "chat-7",
      content: [
        { type: "text", text: "look" },
        { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
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
      body([{ type: "file", mediaType: "image/svg+xml", url: "data:image/svg+xml;base64,PHN2Zz4=" }]),
      body([{ type: "file", mediaType: "image/png", url: "data:image/png;base64,abc" }]),
      body([{ type: "tool-x", toolCallId: "1" }]),
      { messages: [{ role: "user", parts: "no" }] },
      { ...body([{ type: "text", text: "again" }]), trigger: "regenerate-message" },
      { ...body([{ type: "text", text: "x" }]), trigger: "resume-stream" },
      { ...body([{ type: "text", text: "x" }]), trigger: 7 },
    ];
    for (const value of bad)
      expect(() => parseChatRequest(value), JSON.stringify(value)).toThrow(
        expect.objectContaining({ name: "ServeError", code: "invalid-request", status: 400 }),
      );
  });

  test("a megabyte role or part type is refused with a message that quotes it cut short", () => {
    const mb = "r".repeat(1_000_000);
    for (const value of [body([{ type: "text", text: "hi" }], mb), body([{ type: mb }]), body([{ type: { mb } }])]) {
      const error = (() => {
        try {
          parseChatRequest(value);
        } catch (e) {
          return e as Error;
        }
        throw new Error("accepted");
      })();
      expect(error).toMatchObject({ code: "invalid-request", status: 400 });
      expect(error.message.length).toBeLessThan(200);
    }
  });

  test("a prompt while the session waits for approvals or answers: 409 awaiting-approval, before any response", () => {
    const waiting = { approvals: [{ callId: "call_1_1_0" }], inputs: [] };
    expect(() => parseChatRequest(body([{ type: "text", text: "hi" }]), { pending: waiting })).toThrow(
      expect.objectContaining({ code: "awaiting-approval", status: 409 }),
    );
    const idle = { approvals: [], inputs: [] };
    expect(parseChatRequest(body([{ type: "text", text: "hi" }]), { pending: idle })).toMatchObject({ kind: "prompt" });
  });

  describe("answers (the last message is the assistant's)", () => {
    const pending = { approvals: [{ callId: "call_1_1_0" }, { callId: "call_1_1_1" }], inputs: [{ id: "call_1_1_2" }] };
    const answered = (parts: unknown[]) => body(parts, "assistant");
    const parts = [
      { type: "step-start" },
      { type: "text", text: "Deploying." },
      // a server-run tool's result, and an approval decided earlier: not answers
      { type: "tool-read", toolCallId: "call_0_1_0", state: "output-available", input: {}, output: "x" },
      {
        type: "tool-deploy",
        toolCallId: "call_0_1_1",
        state: "approval-responded",
        input: {},
        approval: { id: "call_0_1_1", approved: true },
      },
      {
        type: "tool-deploy",
        toolCallId: "call_1_1_0",
        state: "approval-responded",
        // the client's input is never read: the call runs with the log's arguments
        input: { target: "everywhere" },
        approval: { id: "call_1_1_0", approved: true, reason: "" },
      },
      {
        type: "tool-deploy",
        toolCallId: "call_1_1_1",
        state: "approval-responded",
        input: {},
        approval: { id: "call_1_1_1", approved: false, reason: "not on a Friday" },
      },
      {
        type: "tool-ask_user",
        toolCallId: "call_1_1_2",
        state: "output-available",
        input: {},
        output: { region: "eu" },
      },
    ];

    test("the parts answering pending requests become decisions and responses; the rest is ignored", () => {
      expect(parseChatRequest(answered(parts), { pending, by: "ana" })).toEqual({
        kind: "answers",
        chatId: "chat-7",
        decisions: [
          { callId: "call_1_1_0", approve: true, by: "ana" },
          { callId: "call_1_1_1", approve: false, note: "not on a Friday", by: "ana" },
        ],
        responses: [{ id: "call_1_1_2", value: { region: "eu" }, by: "ana" }],
      });
      // an Agent or a Session is a pending source too
      const source = { pendingApprovals: () => pending.approvals.slice(1), pendingInputs: () => [] };
      expect(parseChatRequest(answered(parts), { pending: source })).toMatchObject({
        decisions: [{ callId: "call_1_1_1", approve: false }],
        responses: [],
      });
    });

    test("answers to nothing pending are nothing-to-answer (409); without pending, or malformed, invalid-request", () => {
      const none = { approvals: [], inputs: [] };
      expect(() => parseChatRequest(answered(parts), { pending: none })).toThrow(
        expect.objectContaining({ name: "ServeError", code: "nothing-to-answer", status: 409 }),
      );
      const malformed = [
        {
          type: "tool-deploy",
          toolCallId: "call_1_1_0",
          state: "approval-responded",
          approval: { id: "call_1_1_0", approved: "yes" },
        },
        {
          type: "tool-deploy",
          toolCallId: "call_1_1_0",
          state: "approval-responded",
          approval: { id: "call_1_1_0", approved: true, reason: 7 },
        },
        { type: "tool-deploy", toolCallId: "call_1_1_0", state: "approval-responded" },
        { type: "tool-ask_user", toolCallId: "call_1_1_2", state: "output-available" },
      ];
      for (const part of malformed)
        expect(() => parseChatRequest(answered([part]), { pending }), JSON.stringify(part)).toThrow(
          expect.objectContaining({ code: "invalid-request", status: 400 }),
        );
      expect(() => parseChatRequest(answered(parts))).toThrow(expect.objectContaining({ code: "invalid-request" }));
      // Malformed answers are the client's mistake even for a call no longer pending: 400, not 409.
      for (const part of malformed.slice(0, 2))
        expect(() => parseChatRequest(answered([part]), { pending: none }), JSON.stringify(part)).toThrow(
          expect.objectContaining({ code: "invalid-request", status: 400 }),
        );
    });
  });
});
