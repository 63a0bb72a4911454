/**
 * The page's script, live or replay. Watching: `watch` beside the page (Server-Sent Events,
 * see `feed.ts`) sends the map once, then snapshots: who stands where, the piles left, the
 * roster, the watchers, the end. Playing: a WebSocket to `play` (see `player.ts`), and the
 * page shows the player's own view and status line. A replay sends every move at once and
 * the page plays them with its own controls (see `playback.ts`).
 *
 * Text from the server reaches the page as text (textContent); only the grid is built as
 * markup, from escaped characters.
 */
import { browserArrow, pageKeyHelp, pageLiveKeys, pageReplayKeys } from "../../client/keymap.js"
import { noteText, statusLine as statusText } from "../../client/status.js"
import { MaxNameLength } from "../../core/constants.js"
import { nuggetCount } from "../../protocol/dialect.js"
import { endTitle, noWinner } from "../../protocol/endings.js"
import { FeedEvent, type Hello, type MapText, type Snapshot } from "../feed.js"
import { Board, spectatorRows } from "./board.js"
import { byId } from "./dom.js"
import { makePad, touchScreen } from "./pad.js"
import { PlayerSession } from "./player.js"
import { ReplayPlayback } from "./playback.js"
import { showRoster } from "./roster.js"

type Mode = "connecting" | "watching" | "playing" | "replay"

const statusLine = byId("status")
const noteLine = byId("note")
const left = byId("left")
const watchersLine = byId("watchers")
const connection = byId("conn")
const joinForm = byId<HTMLFormElement>("join")
const nameInput = byId<HTMLInputElement>("name")
const joinNote = byId("join-note")
const replayControls = byId("replay")
const help = byId("help")
const keysLine = byId("keys")

const board = new Board()
const pad = makePad((key) => press(key), () => void (help.hidden = false))
let mode: Mode = "connecting"
let map: MapText | undefined
let latest: Snapshot | undefined
let over = false
let player: PlayerSession | undefined

nameInput.maxLength = MaxNameLength
// On a touch screen the list is opened from the pad, and a tap on it closes it.
byId("help-close").textContent = touchScreen() ? "A tap closes this." : "Any key closes this."
help.addEventListener("click", () => void (help.hidden = true))
byId("help-keys").append(...pageKeyHelp.flatMap(([keys, what]) => {
  const term = document.createElement("dt")
  term.textContent = keys
  const text = document.createElement("dd")
  text.textContent = what
  return [term, text]
}))

const setMode = (next: Mode) => {
  // Playing shows the player's own view, watching the whole map's: each framed afresh.
  if ((next === "playing") !== (mode === "playing")) board.reset()
  mode = next
  document.body.dataset["mode"] = next
  joinForm.hidden = next === "replay" || next === "playing" || over
  replayControls.hidden = next !== "replay"
  watchersLine.hidden = next === "replay"
  pad.hidden = !(next === "playing" && touchScreen())
  keysLine.textContent = next === "replay" ? pageReplayKeys : pageLiveKeys
  board.large = next === "playing"
  board.fit()
}

const showSnapshot = (snapshot: Snapshot) => {
  latest = snapshot
  const end = snapshot.end === undefined ? undefined : { end: snapshot.end, nuggetsLeft: snapshot.remaining }
  showRoster(snapshot.players, player?.report.letter, end)
  left.textContent = `${nuggetCount(snapshot.remaining)} unclaimed`
  if (snapshot.watchers !== undefined) watchersLine.textContent = `${snapshot.watchers} watching`
  if (mode === "playing" || map === undefined) return
  board.draw(spectatorRows(map, snapshot))
  statusLine.textContent = end
    ? `${endTitle(end.end)}.${end.end === "over" ? "" : ` ${noWinner(end.nuggetsLeft)}`}`
    : `${mode === "replay" ? "Replay" : "Watching"}: ${snapshot.remaining} nuggets unclaimed.`
}

// ---- Watching ----
// Relative: the page may live under a path of its own (`/games/ID/` in a lobby), its feed beside it.
const source = new EventSource("watch")
source.addEventListener(FeedEvent.hello, (event) => {
  const hello = JSON.parse((event as MessageEvent<string>).data) as Hello
  map = hello
  connection.textContent = ""
  if (hello.mode === "replay") {
    source.close()
    setMode("replay")
    const replay = new ReplayPlayback(hello, showSnapshot)
    replayKey = (key) => replay.key(key)
    if (replay.empty) {
      board.draw(hello.map.split("\n"))
      statusLine.textContent = "The recording has no moves."
    }
    return replay.start()
  }
  if (mode === "connecting") setMode("watching")
  board.draw(hello.map.split("\n"))
})
source.addEventListener(FeedEvent.snapshot, (event) => {
  const snapshot = JSON.parse((event as MessageEvent<string>).data) as Snapshot
  if (snapshot.end) {
    over = true
    // The game is over: nothing more will come.
    source.close()
    if (mode === "watching") setMode("watching")
  }
  showSnapshot(snapshot)
})
source.onerror = () => {
  if (over) return
  connection.textContent = source.readyState === EventSource.CLOSED
    ? "cannot watch: the server is gone or has too many watchers"
    : "lost the game's server; trying again…"
}
source.onopen = () => (connection.textContent = "")

// ---- Playing ----
joinForm.addEventListener("submit", (event) => {
  event.preventDefault()
  if (player || over) return
  joinNote.textContent = "joining…"
  player = new PlayerSession(nameInput.value, {
    joined: () => {
      joinNote.textContent = ""
      if (document.activeElement instanceof HTMLElement) document.activeElement.blur()
      setMode("playing")
    },
    changed: (report) => {
      if (report.view) {
        board.draw(report.view)
        if (report.position) board.keepInView(report.position.row, report.position.col)
      }
      statusLine.textContent = statusText(report)
      noteLine.textContent = report.note === undefined ? "" : noteText(report.note)
      if (latest) showSnapshot(latest)
    },
    ended: (message, gameOver) => {
      player = undefined
      over ||= gameOver
      joinNote.textContent = message
      noteLine.textContent = ""
      setMode("watching")
      if (latest) showSnapshot(latest)
      else if (map) board.draw(map.map.split("\n"))
    }
  })
})

// ---- Keys: the terminal's, `?` included; the page's own controls keep theirs ----
let replayKey: (key: string) => boolean = () => false
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return
  const target = event.target instanceof HTMLElement ? event.target.tagName : ""
  if (["INPUT", "SELECT", "BUTTON", "TEXTAREA"].includes(target)) return
  if (mode === "replay") {
    if (replayKey(event.key)) event.preventDefault()
    return
  }
  // As in the terminal: `?` lists the keys, and any key then closes the list (it is not sent).
  if (!help.hidden) {
    help.hidden = true
    return event.preventDefault()
  }
  if (event.key === "?") {
    help.hidden = false
    return event.preventDefault()
  }
  if (mode !== "playing" || player === undefined) return
  const key = browserArrow(event.key) ?? (Array.from(event.key).length === 1 ? event.key : undefined)
  if (key === undefined) return
  event.preventDefault()
  press(key)
})

/** A key of the player's, typed or tapped on the pad. */
function press(key: string): void {
  if (mode !== "playing" || player === undefined) return
  help.hidden = true
  noteLine.textContent = ""
  player.key(key)
}

// Served under a lobby (`nuggets host`), the page links back to it.
byId("lobby").hidden = location.pathname === "/"

setMode("connecting")
