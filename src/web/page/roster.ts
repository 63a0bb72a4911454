import { nuggetCount } from "../../protocol/dialect.js"
import { endTitle, type GameEnd, noWinner } from "../../protocol/endings.js"
import { byPlace } from "../../protocol/summary.js"
import type { RosterEntry } from "../feed.js"
import { byId, row } from "./dom.js"

/**
 * The roster beside the map, and the box of the final standings: ranked, with the winner
 * named when the game is over (its gold ran out); a game stopped before has none, and says
 * how many nuggets were left.
 */

const rosterBody = byId<HTMLTableElement>("roster").tBodies[0]!
const summary = byId("summary")
const title = byId("end-title")
const winnerLine = byId("winner")
const standingsBody = byId<HTMLTableElement>("standings").tBodies[0]!

let shownKey = ""

/** How the game ended, once it has: the word, and the nuggets left on the map. */
export interface End {
  readonly end: GameEnd
  readonly nuggetsLeft: number
}

/** The final standings, best first; a tie shares the place, and, in a game over, the win. */
const placings = (players: ReadonlyArray<RosterEntry>, end: End | undefined) =>
  byPlace(players).map((each) => ({ ...each, winner: end?.end === "over" && each.place === 1 }))

/** `you`: the page's own player's letter, marked; `end`: the game has ended, and its final standings show. */
export const showRoster = (players: ReadonlyArray<RosterEntry>, you: string | undefined, end: End | undefined): void => {
  const key = JSON.stringify([you, end, players])
  if (key === shownKey) return
  shownKey = key
  const places = new Map(placings(players, end).map((each) => [each.letter, each]))
  rosterBody.textContent = ""
  for (const player of players) {
    const place = places.get(player.letter)!
    const state = end ? (place.winner ? "winner" : `#${place.place}`) : player.cell < 0 ? "quit" : "playing"
    const classes = [player.cell < 0 && !end ? "quit" : "", player.letter === you ? "you" : "", place.winner ? "won" : ""]
    rosterBody.appendChild(
      row([["letter", player.letter], ["name", player.name], ["purse", String(player.purse)], ["state", state]], classes.join(" ").trim())
    )
  }
  // Shown again whenever the standings change (a replay seeking back and forth); Close hides it until then.
  summary.hidden = end === undefined
  if (end !== undefined) showSummary(players, you, end)
}

/** The words for the game's end: who won, or that no one did. */
export const endWords = (players: ReadonlyArray<RosterEntry>, end: End): string => {
  const winners = placings(players, end).filter((each) => each.winner)
  if (end.end !== "over") return noWinner(end.nuggetsLeft)
  return winners.length === 0
    ? "No one played."
    : winners.length === 1
    ? `${winners[0]!.letter} ${winners[0]!.name} wins with ${nuggetCount(winners[0]!.purse)}.`
    : `A tie at ${nuggetCount(winners[0]!.purse)}: ${winners.map((each) => `${each.letter} ${each.name}`).join(", ")}.`
}

const showSummary = (players: ReadonlyArray<RosterEntry>, you: string | undefined, end: End): void => {
  title.textContent = endTitle(end.end)
  winnerLine.textContent = endWords(players, end)
  standingsBody.textContent = ""
  for (const each of placings(players, end)) {
    standingsBody.appendChild(
      row(
        [["place", String(each.place)], ["letter", each.letter], ["name", each.name], ["purse", String(each.purse)]],
        [each.winner ? "won" : "", each.letter === you ? "you" : ""].join(" ").trim()
      )
    )
  }
}

byId("summary-close").addEventListener("click", () => (summary.hidden = true))
