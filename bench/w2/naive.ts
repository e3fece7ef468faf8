// The naive baseline in W2: what most hand-written loops do — a plain message array, the whole
// request JSON.stringify'd for every model call, the tool run inline. No validation, no log.
import type { Message } from "../../src/messages/index.js";
import { loopHistory } from "../logs.js";
import type { HarnessFactory } from "./harness.js";
import { FINAL_TEXT, STEP_TEXT, SYSTEM, TOOL } from "./script.js";

export const naive: HarnessFactory = async (messages, script) => {
  const history: Message[] = [];
  for (const t of loopHistory(messages)) {
    history.push(
      { role: "user", content: [{ type: "text", text: t.prompt }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: t.text },
          { type: "tool-call", callId: t.callId, name: t.tool, arguments: t.args },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", callId: t.callId, content: [{ type: "text", text: t.result }], isError: false },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: t.final }] },
    );
  }
  let bytes = 0;
  return {
    async turn(prompt) {
      history.push({ role: "user", content: [{ type: "text", text: prompt }] });
      for (;;) {
        bytes += JSON.stringify({ model: "m", system: SYSTEM, tools: [{ name: TOOL }], messages: history }).length;
        const r = script.next();
        if (r.kind === "final") {
          history.push({ role: "assistant", content: [{ type: "text", text: FINAL_TEXT }] });
          return;
        }
        history.push({
          role: "assistant",
          content: [
            { type: "text", text: STEP_TEXT },
            { type: "tool-call", callId: r.callId, name: TOOL, arguments: JSON.stringify({ n: r.n }) },
          ],
        });
        history.push({
          role: "tool",
          content: [{ type: "tool-result", callId: r.callId, content: [{ type: "text", text: "ok" }], isError: false }],
        });
      }
    },
    historyLength: () => history.length,
    async dispose() {
      if (bytes === 0) throw new Error("unreachable");
    },
  };
};
