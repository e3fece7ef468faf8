export class ChatInput {
    #rl;
    #out;
    #interactive;
    #buffered = [];
    #waiter;
    #closed = false;
    constructor(rl, out, interactive) {
        this.#rl = rl;
        this.#out = out;
        this.#interactive = interactive;
        rl.on("line", (line) => {
            const waiter = this.#waiter;
            this.#waiter = undefined;
            if (waiter === undefined)
                this.#buffered.push(line);
            else
                waiter(line);
        });
        rl.on("close", () => {
            this.#closed = true;
            this.interrupt();
        });
    }
    get closed() {
        return this.#closed && this.#buffered.length === 0;
    }
    /** The next line, after showing `prompt`; undefined at end of input or when interrupted. */
    next(prompt) {
        const buffered = this.#buffered.shift();
        if (buffered !== undefined) {
            if (!this.#interactive)
                this.#out.write(`${prompt}${buffered}\n`);
            return Promise.resolve(buffered);
        }
        if (this.#closed)
            return Promise.resolve(undefined);
        if (this.#interactive) {
            this.#rl.setPrompt(prompt);
            this.#rl.prompt();
        }
        return new Promise((resolve) => {
            this.#waiter = (line) => {
                if (line !== undefined && !this.#interactive)
                    this.#out.write(`${prompt}${line}\n`);
                resolve(line);
            };
        });
    }
    /** Ends a pending `next` with undefined (Ctrl-C while asking); later lines are read normally. */
    interrupt() {
        const waiter = this.#waiter;
        this.#waiter = undefined;
        waiter?.(undefined);
    }
    /** Stops reading: pending and later `next` calls get undefined once the buffer is drained. */
    close() {
        this.#buffered.length = 0;
        if (!this.#closed)
            this.#rl.close();
        this.#closed = true;
        this.interrupt();
    }
}
//# sourceMappingURL=chat-input.js.map