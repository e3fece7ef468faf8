// The smallest useChat page: @ai-sdk/react's hook over Keelson's UI message stream. It loads the
// stored history from the server first (`uiMessagesFromLog`), then chats through POST /api/chat.
// A tool call that waits for approval shows Approve / Deny (`addToolApprovalResponse`); a part
// Keelson marks as a question (`callProviderMetadata.keelson.question`) shows its message and a
// field (`addToolOutput`); once the step's every request is answered the answers are sent
// (`sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithAnswers`, from keelson/serve — bundled
// into the page with it) and the turn continues in the same message.
// With `?resume` in its address the page reconnects to a turn in flight when it loads (useChat's
// `resume: true`: GET /api/chat/<id>/stream). Bundled by esbuild at test time
// (test/serve/use-chat.test.ts); React renders every text, so nothing is escaped by hand.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, getToolName, isToolUIPart, type UIMessage } from "ai";
import { type FormEvent, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
// The module alone (what `keelson/serve` exports it from): this page type-checks without Node types.
import { lastAssistantMessageIsCompleteWithAnswers } from "../../../src/serve/ui-send-when.js";

type Part = UIMessage["parts"][number];

interface Answers {
  readonly approve: (id: string, approved: boolean) => void;
  readonly answer: (toolCallId: string, value: string) => void;
}

/** What a part asks the person, when Keelson marked it as a question. */
const questionOf = (part: Part): string | undefined =>
  (part as { callProviderMetadata?: { keelson?: { question?: { message: string } } } }).callProviderMetadata?.keelson
    ?.question?.message;

function Question({
  id,
  message,
  answers,
}: {
  readonly id: string;
  readonly message: string;
  readonly answers: Answers;
}) {
  const [value, setValue] = useState("");
  return (
    <form
      data-question={id}
      onSubmit={(event) => {
        event.preventDefault();
        answers.answer(id, value);
      }}
    >
      <label data-question-message="">
        {message}
        <input data-answer-for={id} value={value} onChange={(event) => setValue(event.target.value)} />
      </label>
      <button data-action="answer" type="submit">
        Answer
      </button>
    </form>
  );
}

function PartView({ part, answers }: { readonly part: Part; readonly answers: Answers }) {
  if (part.type === "text") return <p data-part="text">{part.text}</p>;
  if (part.type === "reasoning") return <p data-part="reasoning">{part.text}</p>;
  if (!isToolUIPart(part)) return null;
  const name = getToolName(part);
  return (
    <div data-part="tool" data-tool={name} data-state={part.state}>
      <code>{JSON.stringify(part.input ?? null)}</code>
      {part.state === "output-available" ? (
        <output>{typeof part.output === "string" ? part.output : JSON.stringify(part.output)}</output>
      ) : null}
      {part.state === "output-error" ? <output data-error="">{part.errorText}</output> : null}
      {part.state === "output-denied" ? <output data-denied="">denied: {part.approval.reason ?? ""}</output> : null}
      {part.state === "approval-requested" ? (
        <>
          <button data-action="approve" type="button" onClick={() => answers.approve(part.approval.id, true)}>
            Approve
          </button>
          <button data-action="deny" type="button" onClick={() => answers.approve(part.approval.id, false)}>
            Deny
          </button>
        </>
      ) : null}
      {part.state === "input-available" && questionOf(part) !== undefined ? (
        <Question id={part.toolCallId} message={questionOf(part)!} answers={answers} />
      ) : null}
    </div>
  );
}

function Chat({ initial }: { readonly initial: UIMessage[] }) {
  const { messages, sendMessage, status, stop, error, addToolApprovalResponse, addToolOutput } = useChat({
    id: "keelson-chat",
    messages: initial,
    resume: new URLSearchParams(location.search).has("resume"),
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithAnswers,
  });
  const answers: Answers = {
    approve: (id, approved) =>
      void addToolApprovalResponse({ id, approved, ...(approved ? {} : { reason: "not on the page's watch" }) }),
    answer: (toolCallId, value) => void addToolOutput({ tool: "ask_user", toolCallId, output: value }),
  };
  const [input, setInput] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void sendMessage({ text: input });
    setInput("");
  };
  const busy = status === "submitted" || status === "streaming";
  return (
    <main>
      <ol id="messages">
        {messages.map((message) => (
          <li key={message.id} data-id={message.id} data-role={message.role}>
            {message.parts.map((part, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts only grow at the end
              <PartView key={i} part={part} answers={answers} />
            ))}
          </li>
        ))}
      </ol>
      <p id="status">{status}</p>
      {error === undefined ? null : <p id="error">{error.message}</p>}
      <form onSubmit={submit}>
        <input id="prompt" value={input} onChange={(event) => setInput(event.target.value)} />
        <button id="send" type="submit" disabled={busy}>
          Send
        </button>
        {busy ? (
          <button id="stop" type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : null}
      </form>
    </main>
  );
}

function App() {
  const [initial, setInitial] = useState<UIMessage[] | undefined>(undefined);
  useEffect(() => {
    void fetch("/api/messages")
      .then((response) => response.json() as Promise<UIMessage[]>)
      .then(setInitial);
  }, []);
  return initial === undefined ? <p id="loading">loading</p> : <Chat initial={initial} />;
}

createRoot(document.getElementById("root")!).render(<App />);
