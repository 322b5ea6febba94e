/**
 * A small GraphQL playground that needs nothing from a CDN (the mock often runs offline): a query
 * and variables editor, the result, and the schema's SDL, all against this same URL.
 */
export function graphqlPlayground(path: string): string {
  const url = JSON.stringify(path)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphQL playground · mockapi</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; display: grid; grid-template-columns: 1fr 1fr; grid-template-rows: auto 1fr auto; height: 100vh; }
  header { grid-column: 1 / 3; padding: 8px 12px; background: #1f2937; color: #fff; display: flex; gap: 12px; align-items: center; }
  header code { color: #93c5fd; }
  button { font: inherit; padding: 4px 14px; cursor: pointer; }
  section { display: flex; flex-direction: column; min-height: 0; border-right: 1px solid #ddd; }
  textarea, pre { font: 13px ui-monospace, monospace; margin: 0; padding: 8px; border: 0; border-top: 1px solid #ddd; resize: none; }
  #query { flex: 3; } #variables { flex: 1; } #result { flex: 1; overflow: auto; background: #f9fafb; }
  label { padding: 4px 8px; font-size: 12px; color: #555; background: #f3f4f6; }
  details { grid-column: 1 / 3; max-height: 30vh; overflow: auto; border-top: 1px solid #ddd; }
  summary { padding: 6px 12px; cursor: pointer; }
</style>
</head>
<body>
<header><strong>GraphQL playground</strong> <code id="url"></code> <button id="run" type="button">Run ▶</button> <small>Ctrl+Enter runs</small></header>
<section>
  <label for="query">Query</label>
  <textarea id="query" spellcheck="false">{ __schema { queryType { name } types { name kind } } }</textarea>
  <label for="variables">Variables (JSON)</label>
  <textarea id="variables" spellcheck="false">{}</textarea>
</section>
<section>
  <label for="result">Result</label>
  <pre id="result" aria-live="polite"></pre>
</section>
<details><summary>Schema (SDL)</summary><pre id="sdl">loading…</pre></details>
<script>
  const url = ${url};
  document.getElementById('url').textContent = 'POST ' + url;
  const result = document.getElementById('result');
  async function run() {
    let variables;
    try { variables = JSON.parse(document.getElementById('variables').value || '{}'); }
    catch (error) { result.textContent = 'Variables are not valid JSON: ' + error.message; return; }
    result.textContent = 'running…';
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: JSON.stringify({ query: document.getElementById('query').value, variables }) });
    result.textContent = response.status + ' ' + response.statusText + '\\n' + JSON.stringify(await response.json(), null, 2);
  }
  document.getElementById('run').addEventListener('click', run);
  document.addEventListener('keydown', (event) => { if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) run(); });
  fetch(url + '?sdl').then((r) => r.text()).then((text) => { document.getElementById('sdl').textContent = text; });
</script>
</body>
</html>
`
}
