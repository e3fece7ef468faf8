import { usageCost } from "../llm/index.js";
import { isEventOf } from "../session/index.js";
import { Spinner } from "./spinner.js";
import { contentText, preview } from "./transcript.js";
import { formatFooter, tallyTurn } from "./turn-footer.js";
export class ChatView {
    #out;
    #spinner;
    #models;
    #atLineStart = true;
    /** Text of the current attempt is on screen (a retry discards it from history, not from the screen). */
    #streamed = false;
    constructor(out, spinnerOut, models, spinner) {
        this.#out = out;
        this.#spinner = spinner ?? new Spinner(spinnerOut);
        this.#models = models;
    }
    /** Follows `agent`'s hooks; returns the function that stops following. */
    attach(agent) {
        const offs = [
            agent.hooks.on("llm/chunk", (_agent, chunk) => {
                if (chunk.type !== "text-delta" || chunk.text === "")
                    return;
                this.#spinner.stop();
                this.#write(chunk.text);
                this.#streamed = true;
            }),
            agent.hooks.on("session/event", (_agent, event) => this.#onEvent(event)),
        ];
        return () => {
            for (const off of offs)
                off();
            this.#spinner.stop();
        };
    }
    /** A line of chat output (a notice, a command's answer), starting on a fresh line. */
    line(text) {
        this.#spinner.stop();
        this.#newline();
        this.#write(`${text}\n`);
    }
    /** Pauses the spinner (before asking the user something). */
    pause() {
        this.#spinner.stop();
        this.#newline();
    }
    /** The footer of `turn`, from the log. */
    footer(agent, turn) {
        const tally = tallyTurn(agent.session.events, turn);
        const pricing = this.#models.find(agent.model)?.pricing;
        const cost = pricing === undefined ? undefined : usageCost(tally.usage, pricing);
        this.line(formatFooter(tally, cost));
    }
    #onEvent(event) {
        if (isEventOf(event, "step/start")) {
            this.#streamed = false;
            this.#newline();
            this.#spinner.start("thinking");
        }
        else if (isEventOf(event, "tool/call")) {
            this.line(`  ⚙ ${event.data.name} ${preview(event.data.arguments, 100)}`);
            this.#spinner.start(`running ${event.data.name}`);
        }
        else if (isEventOf(event, "tool/result")) {
            const text = contentText(event.data.content)
                .split("\n")
                .find((l) => l.trim() !== "") ?? "";
            this.line(`  ${event.data.isError ? "✗" : "✓"} ${preview(text, 100)}`);
        }
        else if (isEventOf(event, "llm/retry")) {
            const discarded = this.#streamed ? " (the partial answer above is discarded)" : "";
            this.#streamed = false;
            this.line(`  ↻ ${event.data.code}: retrying (attempt ${event.data.attempt + 1}) in ${event.data.delayMs} ms${discarded}`);
        }
        else if (isEventOf(event, "compact/start")) {
            this.line(`  ⧉ compacting (${event.data.trigger})…`);
        }
        else if (isEventOf(event, "compact/end")) {
            this.line(event.data.error === undefined ? "  ⧉ compaction done" : `  ⧉ compaction failed: ${event.data.error}`);
        }
        else if (isEventOf(event, "turn/end")) {
            this.#spinner.stop();
            this.#newline();
        }
    }
    #newline() {
        if (!this.#atLineStart)
            this.#write("\n");
    }
    #write(text) {
        if (text === "")
            return;
        this.#out.write(text);
        this.#atLineStart = text.endsWith("\n");
    }
}
//# sourceMappingURL=chat-view.js.map