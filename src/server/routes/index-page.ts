// GET / : a small HTML page with version information and a query box, as OPA serves.

import type { App, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { label } from '../handler.js';

function escapeHTML(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export const indexRoutes: RouteFamily = {
  routes: [
    { method: 'GET', path: '/', answeredBy: 'worker' },
  ],
  mount: registerIndex,
};

export function registerIndex(app: App, ctx: ServerContext): void {
  app.get('/', (c) => {
    label(c, 'index');
    const v = ctx.version;
    const html = `<html>
<head><title>Regolith</title></head>
<body>
<pre>Regolith - a policy decision server compatible with Open Policy Agent</pre>
Version: ${escapeHTML(v.version)}<br>
Build Commit: ${escapeHTML(v.build_commit)}<br>
Build Timestamp: ${escapeHTML(v.build_timestamp)}<br>
Build Hostname: ${escapeHTML(v.build_hostname)}<br>
<br>Query:<br><textarea rows="10" cols="50" id="query"></textarea><br>
<br>Input Data (JSON):<br><textarea rows="10" cols="50" id="input"></textarea><br>
<br><button onclick="query()">Submit</button>
<pre><div id="result"></div></pre>
<script>
function query() {
  const params = { query: document.getElementById("query").value };
  const raw = document.getElementById("input").value;
  if (raw !== "") {
    try { params.input = JSON.parse(raw); } catch (e) { document.getElementById("result").textContent = e; return; }
  }
  fetch("v1/query", { method: "POST", body: JSON.stringify(params) })
    .then((r) => r.json())
    .then((j) => { document.getElementById("result").textContent = JSON.stringify(j, null, 2); });
}
</script>
</body>
</html>
`;
    return new Response(html, { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } });
  });
}
