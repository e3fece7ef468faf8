// The inspector's front end: the sessions list, or one session's views, by the URL's hash.
import { render } from "preact";
import { takeToken } from "./access.js";
import { SessionsView } from "./sessions-view.js";
import { SessionView } from "./session-view.js";
import { useRoute } from "./route.js";

function App() {
  const route = useRoute();
  return (
    <div class="app">
      <header class="top">
        <a href="#/" class="brand">
          keelson inspect
        </a>
        <span class="muted">read-only</span>
      </header>
      {route.page === "sessions" ? <SessionsView /> : <SessionView key={route.id} route={route} />}
    </div>
  );
}

takeToken(); // before the first route is read: it rewrites the fragment
render(<App />, document.getElementById("app")!);
