/** The page's style sheet: a dark terminal-like board, the map as large as the window allows. */
export const pageStyle = `
:root { color-scheme: dark; --bg: #0d1117; --panel: #161b22; --line: #30363d; --fg: #c9d1d9; --dim: #8b949e;
  --wall: #8b9bb4; --floor: #454d58; --passage: #c08a4d; --gold: #ffd43b; --you-bg: #3fb950; --other: #6cb6ff; }
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; background: var(--bg); color: var(--fg);
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
header { display: flex; flex-wrap: wrap; gap: 0.4em 1.5em; align-items: baseline; padding: 0.4em 1em;
  border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { font-size: 1.2em; margin: 0; color: var(--gold); letter-spacing: 0.05em; }
header span { color: var(--dim); }
#conn { color: #ff9492; }
main { flex: 1; min-height: 0; display: flex; gap: 1em; padding: 0.5em 1em; }
#play-area { flex: 1; min-width: 0; display: flex; flex-direction: column; }
#statusbar { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; white-space: pre;
  overflow: hidden; text-overflow: ellipsis; padding-bottom: 0.3em; }
#note { color: var(--gold); margin-left: 1em; }
#board { flex: 1; min-height: 0; overflow: auto; }
#grid { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 16px; line-height: 1.2;
  white-space: pre; width: max-content; cursor: default; }
#grid div { height: 1.2em; }
.w { color: var(--wall); } .f { color: var(--floor); } .p { color: var(--passage); }
.g { color: var(--gold); font-weight: bold; } .o { color: var(--other); font-weight: bold; }
.me { color: var(--bg); background: var(--you-bg); font-weight: bold; }
aside { flex: 0 0 17em; overflow: auto; display: flex; flex-direction: column; gap: 0.8em; }
form, #replay, #summary { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.6em; }
label { display: block; color: var(--dim); margin-bottom: 0.3em; }
input, select, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line);
  border-radius: 4px; padding: 0.25em 0.5em; }
#name { width: 100%; }
button { cursor: pointer; }
#join-note { margin: 0.4em 0 0; color: var(--dim); min-height: 1.4em; }
#replay { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: center; }
#replay label { display: inline; margin: 0; }
#seek { width: 100%; }
#where { font-family: ui-monospace, monospace; color: var(--dim); }
#summary h2 { font-size: 1em; margin: 0 0 0.4em; color: var(--gold); }
#summary pre { margin: 0; white-space: pre-wrap; }
table { border-collapse: collapse; width: 100%; }
th { text-align: left; color: var(--dim); font-weight: normal; border-bottom: 1px solid var(--line); }
td, th { padding: 0.1em 0.4em; }
td.letter { font-family: ui-monospace, monospace; color: var(--other); font-weight: bold; }
td.name { max-width: 9em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
td.purse { text-align: right; color: var(--gold); }
tr.quit td { color: var(--dim); font-weight: normal; }
tr.you td.letter { color: var(--bg); background: var(--you-bg); }
#keys { color: var(--dim); margin: 0; }
[hidden] { display: none !important; }
`
