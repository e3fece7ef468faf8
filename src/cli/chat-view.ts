// What chat shows while a turn runs: a spinner until the model's first token (and while a tool
// runs), the answer text streamed as it arrives, one line per tool call and per result, retries
// and compactions as they happen, and the per-turn footer once the turn has ended. It only
// listens to the agent's hooks; it never changes what is logged or sent. Everything it prints
// (answers, tool lines, notices) is escaped for the terminal (terminal-text.ts).
import type { Agent } from "../loop/index.js";
import { type ModelRegistry, usageCost } from "../llm/index.js";
import { isEventOf, type SessionEvent } from "../session/index.js";
import { Spinner, type SpinnerOutput } from "./spinner.js";
import { TerminalTextStream } from "./terminal-text.js";
import { contentText, preview } from "./transcript.js";
import { formatFooter, tallyTurn } from "./turn-footer.js";

export interface ChatViewOutput {
  write(text: string): unknown;
}

export class ChatView {
  readonly #out: ChatViewOutput;
  readonly #spinner: Spinner;
  readonly #models: ModelRegistry;
  #atLineStart = true;
  readonly #escaper = new TerminalTextStream();
  /** Text of the current attempt is on screen (a retry discards it from history, not from the screen). */
  #streamed = false;
  /** The provider's base URL, named in retry lines so a dead endpoint is visible at once. */
  endpoint: string | undefined;
  /** Calls whose line was shown at their approval request (not shown again at `tool/call`). */
  readonly #announced = new Set<string>();

  constructor(out: ChatViewOutput, spinnerOut: SpinnerOutput, models: ModelRegistry, spinner?: Spinner) {
    this.#out = out;
    this.#spinner = spinner ?? new Spinner(spinnerOut);
    this.#models = models;
  }

  /** Follows `agent`'s hooks; returns the function that stops following. */
  attach(agent: Agent): () => void {
    const offs = [
      agent.hooks.on("llm/chunk", ({ chunk }) => {
        if (chunk.type !== "text-delta" || chunk.text === "") return;
        this.#spinner.stop();
        this.#write(chunk.text);
        this.#streamed = true;
      }),
      agent.hooks.on("session/event", ({ event }) => this.#onEvent(event)),
    ];
    return () => {
      for (const off of offs) off();
      this.#spinner.stop();
    };
  }

  /** A line of chat output (a notice, a command's answer), starting on a fresh line. */
  line(text: string): void {
    this.#spinner.stop();
    this.#newline();
    this.#write(`${text}\n`);
  }

  /** Pauses the spinner (before asking the user something). */
  pause(): void {
    this.#spinner.stop();
    this.#newline();
  }

  /** The footer of `turn`, from the log. */
  footer(agent: Agent, turn: number): void {
    const tally = tallyTurn(agent.session.events, turn);
    const pricing = this.#models.find(agent.model)?.pricing;
    const cost = pricing === undefined ? undefined : usageCost(tally.usage, pricing);
    this.line(formatFooter(tally, cost));
  }

  #onEvent(event: SessionEvent): void {
    if (isEventOf(event, "step/start")) {
      this.#streamed = false;
      this.#newline();
      this.#spinner.start("thinking");
    } else if (isEventOf(event, "approval/request")) {
      this.#announced.add(event.data.callId);
      this.line(`  ⚙ ${event.data.tool} ${preview(event.data.arguments, 100)} — needs approval`);
    } else if (isEventOf(event, "tool/call")) {
      if (!this.#announced.delete(event.data.callId))
        this.line(`  ⚙ ${event.data.name} ${preview(event.data.arguments, 100)}`);
      this.#spinner.start(`running ${event.data.name}`);
    } else if (isEventOf(event, "tool/result")) {
      const text =
        contentText(event.data.content)
          .split("\n")
          .find((l) => l.trim() !== "") ?? "";
      this.line(`  ${event.data.isError ? "✗" : "✓"} ${preview(text, 100)}`);
    } else if (isEventOf(event, "llm/retry")) {
      const discarded = this.#streamed ? " (the partial answer above is discarded)" : "";
      this.#streamed = false;
      this.line(
        `  ↻ ${event.data.code}${this.endpoint === undefined ? "" : ` from ${this.endpoint}`}: retrying (attempt ${event.data.attempt + 1}) in ${event.data.delayMs} ms${discarded}`,
      );
    } else if (isEventOf(event, "compact/start")) {
      this.line(`  ⧉ compacting (${event.data.trigger})…`);
    } else if (isEventOf(event, "compact/end")) {
      this.line(event.data.error === undefined ? "  ⧉ compaction done" : `  ⧉ compaction failed: ${event.data.error}`);
    } else if (isEventOf(event, "turn/end")) {
      this.#spinner.stop();
      this.#newline();
      const held = this.#escaper.flush();
      if (held !== "") this.#out.write(held);
    }
  }

  #newline(): void {
    if (!this.#atLineStart) this.#write("\n");
  }

  #write(text: string): void {
    if (text === "") return;
    const safe = this.#escaper.push(text);
    if (safe !== "") this.#out.write(safe);
    this.#atLineStart = text.endsWith("\n");
  }
}
