// MCP roots: the directories a server may work in, as `file://` URIs — by default the agent's
// workspace (its session's cwd, else the process's). Declared as the `roots` capability with
// `listChanged`; `roots/list` answers the current list, and a change (`setRoots`) is announced to
// every connected server with `notifications/roots/list_changed`.
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export interface McpRoot {
  readonly uri: string;
  readonly name: string;
}

/** The roots for `dirs`: absolute `file://` URIs, each named after its last path segment. */
export function rootsOf(dirs: readonly string[]): McpRoot[] {
  return dirs.map((dir) => {
    const path = resolve(dir);
    return { uri: pathToFileURL(path).href, name: basename(path) || path };
  });
}
