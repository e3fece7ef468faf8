// The smallest useChat page: @ai-sdk/react's hook over Keelson's UI message stream. It loads the
// stored history from the server first (`uiMessagesFromLog`), then chats through POST /api/chat.
// Bundled by esbuild at test time (test/serve/use-chat.test.ts); React renders every text, so
// nothing is escaped by hand.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, getToolName, isToolUIPart, type UIMessage } from "ai";
import { type FormEvent, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

type Part = UIMessage["parts"][number];

function PartView({ part }: { readonly part: Part }) {
  if (part.type === "text") return <p data-part="text">{part.text}</p>;
  if (part.type === "reasoning") return <p data-part="reasoning">{part.text}</p>;
  if (!isToolUIPart(part)) return null;
  return (
    <div data-part="tool" data-tool={getToolName(part)} data-state={part.state}>
      <code>{JSON.stringify(part.input ?? null)}</code>
      {part.state === "output-available" ? (
        <output>{typeof part.output === "string" ? part.output : JSON.stringify(part.output)}</output>
      ) : null}
      {part.state === "output-error" ? <output data-error="">{part.errorText}</output> : null}
    </div>
  );
}

function Chat({ initial }: { readonly initial: UIMessage[] }) {
  const { messages, sendMessage, status, stop, error } = useChat({
    id: "keelson-chat",
    messages: initial,
    transport: new DefaultChatTransport({ api: "/api/chat" }),
  });
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
              <PartView key={i} part={part} />
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
