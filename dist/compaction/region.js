import { isPairingBalanced } from "../session/index.js";
export function chooseRegion(history, sizes, keepRecentTokens) {
    let tail = 0;
    let end = history.length - 1;
    // Walk back from the newest message until the kept tail is large enough.
    while (end >= 0 && tail < keepRecentTokens)
        tail += sizes[end--];
    for (; end >= 1; end--) {
        if (isPairingBalanced(history.slice(0, end + 1))) {
            const tokens = sizes.slice(0, end + 1).reduce((a, b) => a + b, 0);
            return { start: 0, end, tokens };
        }
    }
    return undefined;
}
//# sourceMappingURL=region.js.map