import { deriveEventMessage } from "./derive.js";
import { SessionError } from "./errors.js";
import { isPairingBalanced } from "./pairing.js";
export class Surface {
    #nodes = [];
    #generation = 0;
    get length() {
        return this.#nodes.length;
    }
    /** Bumped by every replace; appends leave it unchanged. */
    get generation() {
        return this.#generation;
    }
    get nodes() {
        return this.#nodes;
    }
    /**
     * Validates a surface op for an event about to be logged and returns the provenance a
     * replace must carry (the seqs it shadows). Never mutates.
     */
    plan(event, op) {
        if (op === "append")
            return undefined;
        return this.#planReplace(event, op);
    }
    /** Applies an event whose op `plan` accepted. */
    commit(event, op) {
        const node = { seq: event.seq, message: deriveEventMessage(event) };
        if (op === "append") {
            this.#nodes.push(node);
            return;
        }
        this.#nodes.splice(op.start, op.end - op.start + 1, node);
        this.#generation++;
    }
    #planReplace(event, op) {
        const fail = (code, detail) => {
            throw new SessionError(code, `${event.type} at seq ${event.seq}: ${detail}`, event.seq);
        };
        const { start, end } = op;
        if (!Number.isSafeInteger(start) ||
            !Number.isSafeInteger(end) ||
            start < 0 ||
            end < start ||
            end >= this.#nodes.length) {
            fail("replace-out-of-range", `replace ${start}..${end} does not name nodes on a surface of ${this.#nodes.length}`);
        }
        const region = this.#nodes.slice(start, end + 1);
        const replacement = deriveEventMessage(event);
        const regionMessages = region.map((n) => n.message);
        if (replacement.role === "tool") {
            const callId = replacement.content[0].callId;
            const only = regionMessages.length === 1 ? regionMessages[0] : undefined;
            if (only?.role !== "tool" || only.content[0].callId !== callId) {
                fail("replace-splits-tool-pair", `a tool/result may only replace the single result of call ${callId}`);
            }
        }
        else if (!isPairingBalanced([...regionMessages, replacement])) {
            fail("replace-splits-tool-pair", `replacing nodes ${start}..${end} would separate a tool call from its result`);
        }
        return region.map((n) => n.seq);
    }
}
//# sourceMappingURL=surface.js.map