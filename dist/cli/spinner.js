// A one-line terminal spinner shown while the model has not produced its first token. It draws
// only on a TTY (piped output stays clean) and erases itself on stop, so the streamed text that
// follows starts at the left margin. Timers are injectable for tests.
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const INTERVAL_MS = 80;
const realTimers = {
    setInterval: (fn, ms) => setInterval(fn, ms),
    clearInterval: (handle) => clearInterval(handle),
};
export class Spinner {
    #out;
    #timers;
    #handle;
    #frame = 0;
    #label = "";
    constructor(out, timers = realTimers) {
        this.#out = out;
        this.#timers = timers;
    }
    get spinning() {
        return this.#handle !== undefined;
    }
    /** Starts (or relabels) the spinner; a no-op when the output is not a terminal. */
    start(label) {
        if (this.#out.isTTY !== true)
            return;
        this.#label = label;
        if (this.#handle !== undefined)
            return;
        this.#draw();
        this.#handle = this.#timers.setInterval(() => this.#draw(), INTERVAL_MS);
    }
    /** Stops and erases the spinner line. */
    stop() {
        if (this.#handle === undefined)
            return;
        this.#timers.clearInterval(this.#handle);
        this.#handle = undefined;
        this.#out.write("\r\x1b[2K");
    }
    #draw() {
        const frame = FRAMES[this.#frame++ % FRAMES.length];
        this.#out.write(`\r\x1b[2K${frame} ${this.#label}`);
    }
}
//# sourceMappingURL=spinner.js.map