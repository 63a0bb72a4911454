/**
 * The lobby's script: one page for three paths. `/`: the games being played, as the
 * lobby's feed (`/events`, Server-Sent Events) tells them, and the form that starts a new
 * one (`POST /api/games`); `/archive`: past games, a page at a time, filtered by player and
 * map; `/leaderboard`. Everything comes from the JSON API (its contract: `../api.ts`, the
 * Schemas of its answers, `../schemas.ts`, and its paths, `../paths.ts`) and updates
 * without a reload: the feed says when the games or the archive changed. The page takes
 * the contract's types and paths, not its code: the bundle stays a few kilobytes.
 *
 * Text from the server reaches the page as text (textContent), never as markup.
 */
import { endOf } from "../../protocol/endings.js"
import { plural } from "../../words.js"
import { byId, row } from "../../web/page/dom.js"
import { LobbyEvent, type LobbyHello } from "../feed.js"
import { apiPaths, lobbyPaths, pathTo, withQuery } from "../paths.js"
import type { ErrorJson } from "../refusals.js"
import type {
  ArchivePageJson,
  GamesJson,
  LeaderboardJson,
  LiveGameJson,
  NewGameJson,
  PastGameJson,
  StartedGameJson
} from "../schemas.js"

type View = "live" | "archive" | "leaderboard"

const view: View = location.pathname.startsWith(lobbyPaths.archive) ? "archive" : location.pathname.startsWith(lobbyPaths.leaderboard) ? "leaderboard" : "live"
document.body.dataset["view"] = view
byId(`nav-${view}`).setAttribute("aria-current", "page")
byId(view).hidden = false
byId("new").hidden = view !== "live"

const connection = byId("conn")
const counts = byId("counts")

/** `el("td", "name", text)`: an element with a class and its text. */
const el = <K extends keyof HTMLElementTagNameMap>(tag: K, className = "", text?: string): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  if (className !== "") element.className = className
  if (text !== undefined) element.textContent = text
  return element
}

const link = (href: string, text: string, className = "") => {
  const a = el("a", className, text)
  a.href = href
  return a
}

/** `1:05`, `1:02:05`. */
const clock = (ms: number) => {
  const seconds = Math.max(0, Math.round(ms / 1000))
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
  const two = (n: number) => String(n).padStart(2, "0")
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`
}


/** What the API answered, or the words of its refusal. */
const getJson = async <T>(url: string): Promise<T> => {
  const response = await fetch(url, { headers: { accept: "application/json" } })
  const body = (await response.json()) as T | ErrorJson
  if (!response.ok) throw new Error((body as ErrorJson).error ?? `${response.status}`)
  return body as T
}

// ---- The lobby's feed: the games, and when the archive changes ----
const archiveChanged: Array<() => void> = []

/**
 * Calls of `load` where only the latest may show what it loaded: two loads may answer out of
 * order (an archive event while the first list loads), and an older answer must not replace
 * a newer one. `load` asks `isLatest()` once its answer is in.
 */
const latestOnly = (load: (isLatest: () => boolean) => Promise<void>) => {
  let asked = 0
  return () => {
    const mine = ++asked
    return load(() => mine === asked)
  }
}

const feed = new EventSource(lobbyPaths.feed)
feed.addEventListener(LobbyEvent.hello, (event) => {
  connection.textContent = ""
  fillChoices(JSON.parse((event as MessageEvent<string>).data) as LobbyHello)
})
feed.addEventListener(LobbyEvent.games, (event) => showGames(JSON.parse((event as MessageEvent<string>).data) as GamesJson))
// The first event too: it may tell of a game archived after the page loaded its list.
feed.addEventListener(LobbyEvent.archive, () => {
  for (const refresh of archiveChanged) refresh()
})
feed.onerror = () => {
  connection.textContent = feed.readyState === EventSource.CLOSED ? "the lobby is gone" : "lost the lobby; trying again…"
}
feed.onopen = () => (connection.textContent = "")

// ---- Live games ----
const gamesBox = byId("games")

/** How a game that has ended ended: over, or stopped with nuggets left (and no winner). */
const endOfLive = (game: LiveGameJson): string =>
  endOf(game.nuggetsLeft) === "over" ? "over" : `stopped, ${plural(game.nuggetsLeft, "nugget")} left`

const gameCard = (game: LiveGameJson): HTMLElement => {
  const card = el("article", game.over ? "game over" : "game")
  card.dataset["id"] = game.id
  const head = el("header")
  head.append(link(game.page, game.map, "map"), el("span", "id", game.id))
  const tags = [game.dialect === "2021" ? "cs50-2021" : "", game.variant === "classic" ? "" : game.variant].filter(Boolean)
  if (tags.length > 0) head.append(el("span", "tags", tags.join(" · ")))
  card.append(head)
  if (game.players.length === 0) {
    card.append(el("p", "nobody", "No one has joined yet."))
  } else {
    const players = el("table", "players")
    const body = el("tbody")
    for (const player of game.players) {
      body.append(row([["letter", player.letter], ["name", player.name], ["purse", String(player.purse)]], player.playing ? "" : "quit"))
    }
    players.append(body)
    card.append(players)
  }
  const age = el("span", "age", clock(Date.now() - Date.parse(game.started)))
  age.dataset["started"] = game.started
  const stats = el("p", "stats")
  stats.append(
    el("span", "", game.over ? endOfLive(game) : `${plural(game.nuggetsLeft, "nugget")} left`),
    el("span", "", `${game.watchers} watching`),
    age,
    el("span", "", game.freePlaces > 0 ? `${plural(game.freePlaces, "place")} free` : "full")
  )
  card.append(stats)
  const join = el("p", "join")
  join.append(el("code", "", game.join))
  card.append(join, link(game.page, game.over ? "See how it ended" : "Watch and play", "open"))
  return card
}

const showGames = (games: GamesJson) => {
  const playing = games.games.reduce((sum, game) => sum + game.players.filter((player) => player.playing).length, 0)
  counts.textContent = `${plural(games.games.length, "game")} · ${plural(playing, "player")} playing` +
    (games.closing === undefined ? "" : ` · ${games.closing}`)
  if (view !== "live") return
  byId("no-games").hidden = games.games.length > 0
  gamesBox.replaceChildren(...games.games.map(gameCard))
}

// The ages go on without the server.
setInterval(() => {
  for (const age of Array.from(gamesBox.querySelectorAll<HTMLElement>(".age"))) {
    age.textContent = clock(Date.now() - Date.parse(age.dataset["started"] ?? ""))
  }
}, 1000)

// ---- A new game ----
const newForm = byId<HTMLFormElement>("new-game")
const newNote = byId("new-note")
const choose = (select: HTMLSelectElement, values: ReadonlyArray<string>, chosen?: string, label = (value: string) => value) => {
  select.replaceChildren(...values.map((value) => new Option(label(value), value, value === chosen, value === chosen)))
}

const fillChoices = (choices: LobbyHello) => {
  choose(byId<HTMLSelectElement>("new-map"), choices.maps, choices.maps[0])
  choose(byId<HTMLSelectElement>("new-variant"), choices.variants, choices.variant, (variant) =>
    variant === "steal" ? "steal (10% of a purse on a swap)" : variant)
  choose(byId<HTMLSelectElement>("new-dialect"), choices.dialects, choices.dialect, (dialect) =>
    dialect === "2021" ? "2021 (most CS50 clients)" : "2019 (the spec)")
  const mapFilter = byId<HTMLSelectElement>("filter-map")
  const wanted = new URLSearchParams(location.search).get("map") ?? ""
  const maps = wanted !== "" && !choices.maps.includes(wanted) ? [...choices.maps, wanted] : choices.maps
  mapFilter.replaceChildren(new Option("every map", "", wanted === "", wanted === ""), ...maps.map((name) => new Option(name, name, name === wanted, name === wanted)))
}

newForm.addEventListener("submit", (event) => {
  event.preventDefault()
  const seedText = byId<HTMLInputElement>("new-seed").value.trim()
  if (seedText !== "" && !/^\d{1,15}$/.test(seedText)) {
    newNote.textContent = "The seed is a whole number (or nothing, for a random game)."
    return
  }
  // The contract's fields; their values are the choices the feed's hello offered.
  const body: Partial<Record<keyof NewGameJson, unknown>> = {
    map: byId<HTMLSelectElement>("new-map").value,
    variant: byId<HTMLSelectElement>("new-variant").value,
    dialect: byId<HTMLSelectElement>("new-dialect").value,
    ...(seedText === "" ? {} : { seed: Number(seedText) })
  }
  newNote.textContent = "starting…"
  const start = byId<HTMLButtonElement>("new-start")
  start.disabled = true
  void fetch(apiPaths.games, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    .then(async (response) => {
      const answer = (await response.json()) as StartedGameJson | ErrorJson
      if (!response.ok) throw new Error((answer as ErrorJson).error)
      // To its page: to watch it, and to play it.
      location.assign(pathTo(lobbyPaths.game, { id: (answer as StartedGameJson).id }))
    })
    .catch((error: unknown) => {
      newNote.textContent = `Not started: ${error instanceof Error ? error.message : String(error)}`
      start.disabled = false
    })
})

// ---- Past games ----
/** How a past game ended, in the words of every game's end, with the nuggets a stopped one left. */
const endOfPast = (game: PastGameJson): string =>
  game.outcome === "stopped" && game.nuggetsLeft !== null ? `stopped, ${plural(game.nuggetsLeft, "nugget")} left` : game.outcome

const pastRow = (game: PastGameJson): HTMLTableRowElement => {
  const tr = el("tr")
  tr.dataset["id"] = game.id
  const when = el("td", "when")
  when.append(link(game.replay, new Date(game.started).toLocaleString([], { dateStyle: "medium", timeStyle: "short" })))
  const standings = game.standings.map((each) => `${each.rank}. ${each.name} ${each.purse}`).join(", ")
  tr.append(
    when,
    el("td", "map", game.map),
    el("td", "time", game.durationMs === null ? "-" : clock(game.durationMs)),
    el("td", "end", endOfPast(game)),
    el("td", "winner", game.winners.join(", ") || "-"),
    el("td", "standings", standings || "no one joined")
  )
  if (game.failure !== null) tr.title = game.failure
  return tr
}

const showArchive = latestOnly(async (isLatest) => {
  const query = new URLSearchParams(location.search)
  byId<HTMLInputElement>("filter-player").value = query.get("player") ?? ""
  const asked = new URLSearchParams()
  for (const name of ["player", "map", "before"]) {
    const value = query.get(name)
    if (value) asked.set(name, value)
  }
  try {
    const page = await getJson<ArchivePageJson>(withQuery(apiPaths.archive, asked))
    if (!isLatest()) return
    byId("no-past").hidden = page.games.length > 0
    byId<HTMLTableElement>("past").tBodies[0]!.replaceChildren(...page.games.map(pastRow))
    const older = byId<HTMLAnchorElement>("older")
    older.hidden = page.next === null
    if (page.next !== null) {
      const next = new URLSearchParams(asked)
      next.set("before", page.next)
      older.href = withQuery(lobbyPaths.archive, next)
    }
    const newest = byId<HTMLAnchorElement>("newest")
    newest.hidden = !asked.has("before")
    asked.delete("before")
    newest.href = withQuery(lobbyPaths.archive, asked)
  } catch (error) {
    connection.textContent = `the archive: ${error instanceof Error ? error.message : String(error)}`
  }
})

byId<HTMLFormElement>("filter").addEventListener("submit", (event) => {
  event.preventDefault()
  const query = new URLSearchParams()
  const player = byId<HTMLInputElement>("filter-player").value.trim()
  const map = byId<HTMLSelectElement>("filter-map").value
  if (player !== "") query.set("player", player)
  if (map !== "") query.set("map", map)
  history.pushState(null, "", withQuery(lobbyPaths.archive, query))
  void showArchive()
})
window.addEventListener("popstate", () => void showArchive())

// ---- The leaderboard ----
const showLeaders = latestOnly(async (isLatest) => {
  try {
    const board = await getJson<LeaderboardJson>(apiPaths.leaderboard)
    if (!isLatest()) return
    byId("no-leaders").hidden = board.leaders.length > 0
    byId<HTMLTableElement>("leaders").tBodies[0]!.replaceChildren(...board.leaders.map((leader, i) => {
      const best = el("td", "best")
      best.append(link(pathTo(lobbyPaths.replay, { id: leader.best.game }), `${leader.best.purse} nuggets`))
      const tr = row([
        ["rank", String(i + 1)],
        ["name", leader.name],
        ["num", String(leader.games)],
        ["num", String(leader.wins)],
        ["num", String(leader.nuggets)]
      ])
      tr.append(best)
      return tr
    }))
  } catch (error) {
    connection.textContent = `the leaderboard: ${error instanceof Error ? error.message : String(error)}`
  }
})

if (view === "archive") {
  void showArchive()
  // A new game only shows on the first page: the others are older.
  archiveChanged.push(() => {
    if (!new URLSearchParams(location.search).has("before")) void showArchive()
  })
}
if (view === "leaderboard") {
  void showLeaders()
  archiveChanged.push(() => void showLeaders())
}
