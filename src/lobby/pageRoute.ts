import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { inlinePage, pageHead } from "../web/pageRoute.js"
import { lobbyAssets } from "./pageAssets.js"
import { lobbyPaths } from "./paths.js"

/**
 * The lobby of `nuggets host`: one page for `/` (the games being played, and a new one),
 * `/archive` (past games) and `/leaderboard`, which its script (`page/main.ts`) shows by
 * the path it is at, from the JSON API and the lobby's feed. The markup is the frame.
 */
const lobbyHtml = (style: string, script: string) => `${pageHead(style)}<body class="lobby" data-view="live">
<header>
  <h1>Nuggets</h1>
  <nav>
    <a href="${lobbyPaths.live}" id="nav-live">Live games</a>
    <a href="${lobbyPaths.archive}" id="nav-archive">Past games</a>
    <a href="${lobbyPaths.leaderboard}" id="nav-leaderboard">Leaderboard</a>
  </nav>
  <span id="counts"></span>
  <span id="conn" role="status"></span>
</header>
<main>
  <section id="live" hidden>
    <h2>Live games</h2>
    <p id="no-games" class="empty" hidden>No game is being played. Start one.</p>
    <div id="games"></div>
  </section>
  <aside id="new" hidden>
    <form id="new-game" autocomplete="off">
      <h2>New game</h2>
      <label for="new-map">Map</label>
      <select id="new-map"></select>
      <label for="new-seed">Seed</label>
      <input id="new-seed" inputmode="numeric" placeholder="random" spellcheck="false">
      <label for="new-variant">Rules</label>
      <select id="new-variant"></select>
      <label for="new-dialect">Protocol</label>
      <select id="new-dialect"></select>
      <button id="new-start" type="submit">Start the game</button>
      <p id="new-note" role="status"></p>
    </form>
  </aside>
  <section id="archive" hidden>
    <h2>Past games</h2>
    <form id="filter" autocomplete="off">
      <input id="filter-player" placeholder="player" spellcheck="false" aria-label="player">
      <select id="filter-map" aria-label="map"><option value="">every map</option></select>
      <button type="submit">Filter</button>
      <a id="filter-clear" href="${lobbyPaths.archive}">all games</a>
    </form>
    <p id="no-past" class="empty" hidden>No game to show.</p>
    <div class="scroll"><table id="past"><thead><tr><th class="when">when</th><th class="map">map</th><th class="time">time</th><th class="end">end</th><th class="winner">winner</th><th class="standings">standings</th></tr></thead><tbody></tbody></table></div>
    <p class="pages"><a id="newest" href="${lobbyPaths.archive}" hidden>newest</a> <a id="older" href="${lobbyPaths.archive}" hidden>older games</a></p>
  </section>
  <section id="leaderboard" hidden>
    <h2>Leaderboard</h2>
    <p class="note">Games played to the end: the most wins first, then the most nuggets.</p>
    <p id="no-leaders" class="empty" hidden>No game has been played to its end yet.</p>
    <div class="scroll"><table id="leaders"><thead><tr><th class="rank">#</th><th class="name">name</th><th class="num">games</th><th class="num">wins</th><th class="num">nuggets</th><th class="best">best game</th></tr></thead><tbody></tbody></table></div>
  </section>
</main>
<script>${script}</script>
</body>
</html>
`

let page: HttpServerResponse.HttpServerResponse | undefined

/** `/`, `/archive`, `/leaderboard`: the lobby, made the first time it is asked for. */
export const lobbyRoute = Effect.sync(() => page ??= inlinePage(lobbyAssets(), lobbyHtml))
