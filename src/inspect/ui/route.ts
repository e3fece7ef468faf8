// Hash routes: #/ (sessions), #/session/<id>[/<tab>[/<n>]] with tab timeline | request | headers | cache | replay.
import { useEffect, useState } from "preact/hooks";

export type Tab = "timeline" | "request" | "headers" | "cache" | "replay";

export type Route =
  | { readonly page: "sessions" }
  | { readonly page: "session"; readonly id: string; readonly tab: Tab; readonly n?: number };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] !== "session" || parts[1] === undefined) return { page: "sessions" };
  const tab =
    (["timeline", "request", "headers", "cache", "replay"] as const).find((t) => t === parts[2]) ?? "timeline";
  const n = Number(parts[3]);
  return { page: "session", id: parts[1], tab, ...(Number.isSafeInteger(n) && n > 0 ? { n } : {}) };
}

export function href(route: Route): string {
  if (route.page === "sessions") return "#/";
  return `#/session/${encodeURIComponent(route.id)}/${route.tab}${route.n === undefined ? "" : `/${route.n}`}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = (): void => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}
