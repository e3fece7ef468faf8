// The page's access token. `keelson inspect` prints it in the URL's fragment (`#token=…`, which
// the browser never sends); on load it moves into page memory — and sessionStorage, which is per
// origin, so per port, so that a reload keeps it — and leaves the address bar. Every API request
// and the live stream send it as `Authorization: Bearer`; it is never a cookie (cookies ignore
// ports: any other listener on 127.0.0.1 would receive it; issue #20 F5).

const KEY = "keelson-inspect-token";
let token: string | undefined;

/** Takes the token (and the session to open) from the fragment, else the tab's stored token. */
export function takeToken(): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get("token");
  if (given === null) {
    token = sessionStorage.getItem(KEY) ?? undefined;
    return;
  }
  token = given;
  sessionStorage.setItem(KEY, given);
  const session = fragment.get("session");
  const route = session === null ? "#/" : `#/session/${encodeURIComponent(session)}`;
  history.replaceState(null, "", `${location.pathname}${route}`);
}

/** The header every request carries (none when the page was opened without a token: the server says 401). */
export function authorization(): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}
