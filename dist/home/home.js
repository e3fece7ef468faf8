// Where Keelson keeps its data: $KEELSON_HOME, else $XDG_DATA_HOME/keelson, else
// ~/.local/share/keelson. Sessions live in `<home>/sessions`.
import { homedir } from "node:os";
import { join } from "node:path";
export function keelsonHome(env = process.env) {
    if (env.KEELSON_HOME)
        return env.KEELSON_HOME;
    const data = env.XDG_DATA_HOME || join(homedir(), ".local", "share");
    return join(data, "keelson");
}
export function defaultSessionsDir(env = process.env) {
    return join(keelsonHome(env), "sessions");
}
//# sourceMappingURL=home.js.map