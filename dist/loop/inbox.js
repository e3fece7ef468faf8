export class Inbox {
    #prompts = [];
    #steers = [];
    #injects = [];
    #compacts = [];
    get empty() {
        return this.#prompts.length + this.#steers.length + this.#injects.length + this.#compacts.length === 0;
    }
    get hasSteers() {
        return this.#steers.length > 0;
    }
    prompt(item) {
        this.#prompts.push(item);
    }
    steer(item) {
        this.#steers.push(item);
    }
    inject(item) {
        this.#injects.push(item);
    }
    compact(item) {
        this.#compacts.push(item);
    }
    /** Everything queued, for a new turn. */
    claimAll() {
        const claim = { prompts: this.#prompts, steers: this.#steers, injects: this.#injects, compacts: this.#compacts };
        this.#prompts = [];
        this.#steers = [];
        this.#injects = [];
        this.#compacts = [];
        return claim;
    }
    /** Steers and injects that arrived while the turn ran, for its next boundary. */
    takeBoundary() {
        const out = { steers: this.#steers, injects: this.#injects };
        this.#steers = [];
        this.#injects = [];
        return out;
    }
    /** Injects only (at turn end, when no further boundary comes). */
    takeInjects() {
        const out = this.#injects;
        this.#injects = [];
        return out;
    }
    /** Empties the inbox, rejecting everything (dispose). */
    rejectAll(error) {
        const { prompts, steers, injects, compacts } = this.claimAll();
        for (const item of [...prompts, ...steers, ...injects, ...compacts])
            item.settle.reject(error);
    }
}
//# sourceMappingURL=inbox.js.map