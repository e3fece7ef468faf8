// pi-agent-core in W2S, two ways of running a turn over a prepared history (pi-ai Messages):
//   Agent      a new `Agent` per turn whose `initialState.messages` is the prepared history
//              (the constructor copies the top-level array), then `agent.prompt(...)`;
//   agentLoop  the loop function itself over `{ systemPrompt, messages, tools }` (it copies the
//              array too), its event stream drained, `convertToLlm` the identity (the history
//              holds only LLM messages, so nothing needs filtering).
// Both share one prepared array, as a server holding the session in memory would; the runner
// checks after every turn that it is still exactly H messages long. The model is W2's scripted
// `streamFn` at pi's provider seam.
import { Agent, agentLoop } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { model, noop, scriptedStream } from "../w2/pi-agent.js";
import { SYSTEM } from "../w2/script.js";
import type { StoredRunner, StoredRunnerFactory } from "./harness.js";
import { piHistory } from "./history.js";

/** Reads the history length after a turn, refusing a runner that grew the shared prepared array. */
const untouched = (prepared: readonly Message[], messages: number, after: () => number) => (): number => {
  if (prepared.length !== messages)
    throw new Error(`the prepared history grew to ${prepared.length} messages (expected ${messages})`);
  return after();
};

export const piAgentPerTurn: StoredRunnerFactory = async (history, script) => {
  const prepared = piHistory(history.shape, history.messages);
  const streamFn = scriptedStream(script);
  const runner: StoredRunner = {
    async turn(_index, prompt) {
      const agent = new Agent({
        initialState: { systemPrompt: SYSTEM, model, tools: [noop], messages: prepared },
        streamFn,
      });
      await agent.prompt(prompt);
      if (agent.state.errorMessage !== undefined)
        throw new Error(`pi-agent-core turn failed: ${agent.state.errorMessage}`);
      return untouched(prepared, history.messages, () => agent.state.messages.length);
    },
    async dispose() {},
  };
  return runner;
};

export const piAgentLoop: StoredRunnerFactory = async (history, script) => {
  const prepared = piHistory(history.shape, history.messages);
  const streamFn = scriptedStream(script);
  const config = { model, convertToLlm: (messages: readonly unknown[]) => messages as Message[] };
  const runner: StoredRunner = {
    async turn(_index, prompt) {
      const user: Message = { role: "user", content: [{ type: "text", text: prompt }], timestamp: Date.now() };
      const stream = agentLoop(
        [user],
        { systemPrompt: SYSTEM, messages: prepared, tools: [noop] },
        config,
        undefined,
        streamFn,
      );
      for await (const _event of stream);
      const added = await stream.result();
      const last = added.at(-1);
      if (last?.role !== "assistant" || last.stopReason !== "stop")
        throw new Error(`pi agentLoop ended on ${JSON.stringify(last)}`);
      return untouched(prepared, history.messages, () => history.messages + added.length);
    },
    async dispose() {},
  };
  return runner;
};
