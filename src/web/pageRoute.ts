import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { safeHeaders } from "./headers.js"
import { pageAssets } from "./pageAssets.js"
import type { PageAssets } from "./pageBuild.js"

/** The start of every page this server makes, up to its body: one style sheet, inline. */
export const pageHead = (style: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Nuggets</title>
<link rel="icon" href="data:,">
<style>${style}</style>
</head>
`

/**
 * The one page, live or replay: everything it needs is in it, so it works with no
 * internet. The markup is the frame; `page/main.ts` fills it in.
 */
const pageHtml = (pageStyle: string, pageScript: string) => `${pageHead(pageStyle)}<body data-mode="connecting">
<header>
  <h1>Nuggets</h1>
  <a id="lobby" href="/" hidden>all games</a>
  <span id="left"></span>
  <span id="watchers"></span>
  <span id="conn" role="status"></span>
</header>
<main>
  <section id="play-area">
    <div id="statusbar"><span id="status">Connecting to the game…</span><span id="note"></span></div>
    <div id="board"><div id="grid" role="img" aria-label="the map"></div></div>
    <div id="pad" role="group" aria-label="moves" hidden></div>
    <section id="help" class="box" hidden><h2>Keys</h2><dl id="help-keys"></dl><p id="help-close"></p></section>
    <section id="summary" class="box" hidden>
      <h2 id="end-title">Game over</h2>
      <p id="winner"></p>
      <table id="standings"><thead><tr><th>place</th><th></th><th>name</th><th>nuggets</th></tr></thead><tbody></tbody></table>
      <button id="summary-close" type="button">Close</button>
    </section>
  </section>
  <aside>
    <form id="join" autocomplete="off">
      <label for="name">Play: type a name, then Enter</label>
      <input id="name" name="name" placeholder="your name" spellcheck="false" enterkeyhint="go">
      <p id="join-note"></p>
    </form>
    <div id="replay" hidden>
      <button id="pause" type="button">Pause</button>
      <label>speed <select id="speed"></select></label>
      <input id="seek" type="range" min="0" max="0" value="0" aria-label="move">
      <span id="where"></span>
    </div>
    <table id="roster"><thead><tr><th></th><th>name</th><th>purse</th><th></th></tr></thead><tbody></tbody></table>
    <p id="keys"></p>
  </aside>
</main>
<script>${pageScript}</script>
</body>
</html>
`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`

/** Only this page's own script and style run, and it talks to this server only. */
export const contentSecurityPolicy = (pageStyle: string, pageScript: string) => [
  "default-src 'none'",
  `script-src ${sha256(pageScript)}`,
  `style-src ${sha256(pageStyle)}`,
  "connect-src 'self'",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/**
 * A page whose script and style are inline (it needs nothing else), allowed to run by
 * their digests and nothing else: `html` puts them in their places.
 */
export const inlinePage = (assets: PageAssets, html: (style: string, script: string) => string) => {
  const { script, style } = assets
  // Inline, a `</script` in one of the script's strings would end it early.
  const inline = script.replace(/<\/(script)/gi, "<\\/$1")
  return HttpServerResponse.uint8Array(new TextEncoder().encode(html(style, inline)), {
    contentType: "text/html; charset=utf-8",
    headers: { ...safeHeaders, "content-security-policy": contentSecurityPolicy(style, inline) }
  })
}

/** The page's reply, made the first time it is asked for. */
let page: HttpServerResponse.HttpServerResponse | undefined
const makePage = () => inlinePage(pageAssets(), pageHtml)

/** The page: at `/` (`serve --web`), or at a game's own path in a lobby (its feed and socket beside it). */
export const pageRoute = Effect.sync(() => page ??= makePage())
