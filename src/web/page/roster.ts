import { byPlace } from "../../protocol/summary.js"
import type { RosterEntry } from "../feed.js"
import { byId, row } from "./dom.js"

/** The roster beside the map, and the game-over box: ranked, with the winner named. */

const rosterBody = byId<HTMLTableElement>("roster").tBodies[0]!
const summary = byId("summary")
const winnerLine = byId("winner")
const standingsBody = byId<HTMLTableElement>("standings").tBodies[0]!

let shownKey = ""

/** The final standings, best first; a tie shares the place, and the win. */
const placings = (players: ReadonlyArray<RosterEntry>) => byPlace(players).map((each) => ({ ...each, winner: each.place === 1 }))

/** `you`: the page's own player's letter, marked; `over`: the final standings, each with its place. */
export const showRoster = (players: ReadonlyArray<RosterEntry>, you: string | undefined, over: boolean): void => {
  const key = JSON.stringify([you, over, players])
  if (key === shownKey) return
  shownKey = key
  const places = new Map(placings(players).map((each) => [each.letter, each]))
  rosterBody.textContent = ""
  for (const player of players) {
    const place = places.get(player.letter)!
    const state = over ? (place.winner ? "winner" : `#${place.place}`) : player.cell < 0 ? "quit" : "playing"
    const classes = [player.cell < 0 && !over ? "quit" : "", player.letter === you ? "you" : "", over && place.winner ? "won" : ""]
    rosterBody.appendChild(
      row([["letter", player.letter], ["name", player.name], ["purse", String(player.purse)], ["state", state]], classes.join(" ").trim())
    )
  }
  showSummary(over ? players : undefined, you)
}

const showSummary = (players: ReadonlyArray<RosterEntry> | undefined, you: string | undefined): void => {
  summary.hidden = players === undefined
  if (players === undefined) return
  const ranked = placings(players)
  const winners = ranked.filter((each) => each.winner)
  winnerLine.textContent = winners.length === 0
    ? "No one played."
    : winners.length === 1
    ? `${winners[0]!.letter} ${winners[0]!.name} wins with ${winners[0]!.purse} nuggets.`
    : `A tie at ${winners[0]!.purse} nuggets: ${winners.map((each) => `${each.letter} ${each.name}`).join(", ")}.`
  standingsBody.textContent = ""
  for (const each of ranked) {
    standingsBody.appendChild(
      row(
        [["place", String(each.place)], ["letter", each.letter], ["name", each.name], ["purse", String(each.purse)]],
        [each.winner ? "won" : "", each.letter === you ? "you" : ""].join(" ").trim()
      )
    )
  }
}
