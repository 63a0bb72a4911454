import { Effect } from "effect"
import { notRun } from "../conformance/check.js"
import { RoomSpot } from "../../core/map.js"
import type { Position } from "../../protocol/reader.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client } from "./client.js"
import type { Clients } from "./clients.js"
import type { ServerCheck } from "./server-check.js"
import { reportFlags } from "./judge.js"
import { where } from "./walking.js"

/**
 * Who is drawn where, judged over every player the checker let in: each new player dropped
 * on an empty room spot, alone there; every player drawn as @ in its own view, and by its
 * letter in the spectator's, never under gold or another player.
 */

const at = (view: ReadonlyArray<string> | undefined, char: string): Position | undefined => {
  for (const [row, line] of (view ?? []).entries()) {
    const col = line.indexOf(char)
    if (col !== -1) return { row, col }
  }
  return undefined
}

/** Where `other` stood when `client` was let in, by its own DISPLAYs: its last place before. */
const placeBefore = (other: Client, seq: number) => other.places.filter((place) => place.seq < seq).at(-1)?.position

const players = (game: Clients) => game.all.filter((client) => client.role === "player" && client.report.letter !== undefined)

/** Players another was dropped on: in each game, the player it stood on, with the one dropped there. */
const droppedOn = (games: ReadonlyArray<Clients>) =>
  games.flatMap((game, index) =>
    players(game).flatMap((client) => {
      const self = at(client.firstView, "@")
      const seq = client.firstViewSeq
      const victim = self && seq !== undefined ? players(game).find((other) => other !== client && !other.left && sameCell(placeBefore(other, seq), self)) : undefined
      return victim === undefined || self === undefined ? [] : [{ game: index + 1, client, victim, at: self }]
    })
  )

export const newPlayerDrop: ServerCheck<"new-player-drop", "join-player"> = {
  name: "new-player-drop",
  title: "each new player is dropped on an empty room spot: its first GOLD says n=0 p=0, and no one else stands there",
  needs: ["join-player"],
  judgesGathered: true,
  run: (context) =>
    Effect.gen(function*() {
      yield* context.need("join-player")
      let joined = 0
      for (const game of context.games) {
        for (const client of players(game)) {
          joined++
          const letter = client.report.letter!
          const gold = client.firstGold
          const self = at(client.firstView, "@")
          if (gold && (gold.n !== 0 || gold.p !== 0)) {
            context.fail({
              what: `player ${letter}'s first GOLD says n=${gold.n} p=${gold.p}: it was dropped on a pile and collected it, where a new player is dropped on an empty spot` +
                `${self === undefined ? " (its first DISPLAY shows the gold, not the player)" : ""}`,
              sent: escaped(`PLAY ${client.name}`),
              got: escaped(`GOLD ${gold.n} ${gold.p} ${gold.r}`),
              spec: Requirements.newPlayerDropped
            })
          }
          const map = context.map
          const cell = map && self ? map.cells[self.row * map.cols + self.col] : undefined
          if (self && cell !== undefined && cell !== RoomSpot) {
            context.fail({
              what: `player ${letter} was dropped at ${where(self)}, which the map has as '${String.fromCharCode(cell)}', not a room spot`,
              sent: escaped(`PLAY ${client.name}`),
              spec: Requirements.newPlayerDropped
            })
          }
        }
      }
      for (const { at: spot, client, victim } of droppedOn(context.games)) {
        context.fail({
          what: `player ${client.report.letter} was dropped at ${where(spot)}, where player ${victim.report.letter} stood (by its own DISPLAY)`,
          sent: escaped(`PLAY ${client.name}`),
          spec: Requirements.newPlayerDropped
        })
      }
      if (joined === 0) return yield* notRun("no player of the checker was let in (see join-player)")
      context.note(`${joined} players' drops judged`)
    })
}

const sameCell = (a: Position | undefined, b: Position | undefined) => a !== undefined && b !== undefined && a.row === b.row && a.col === b.col

export const occupantsDrawn: ServerCheck<"occupants-drawn", "join-spectator" | "join-player" | "move-keys"> = {
  name: "occupants-drawn",
  title: "a player is drawn as @ in its own DISPLAY and by its letter in the spectator's, never hidden under gold or another player",
  needs: ["join-spectator", "join-player", "move-keys"],
  judgesGathered: true,
  run: (context) =>
    Effect.gen(function*() {
      yield* context.need("join-player")
      if (!context.games.some((game) => game.all.some((client) => client.report.view !== undefined))) {
        return yield* notRun("no client was sent a DISPLAY it could read (see display-framing)")
      }
      // A player another was dropped on is not drawn: that is new-player-drop's finding, once.
      const victims = new Set(droppedOn(context.games).map(({ game, victim }) => `${game} ${victim.probe.label}`))
      reportFlags(context, ["occupants"], () => false, (seen) => !victims.has(`${seen.game} ${seen.client}`))
      for (const game of context.games) {
        for (const lost of game.unseen.values()) {
          context.fail({
            what: `after a move of player ${lost.letter} to ${where(lost.at)}, neither its DISPLAY nor the spectator's shows it: the spectator shows '${lost.shown}' there` +
              (lost.shown === "*" ? " (gold drawn over the player)" : ""),
            got: `spectator's row ${lost.at.row}: ${escaped(lost.row)}`,
            spec: Requirements.displayPerClient
          })
        }
        for (const over of game.drawnOver) {
          context.fail({
            what: `the spectator shows '${over.shown}' where player ${over.letter} stands (its own DISPLAY last put it at ${where(over.at)}), and ${over.letter} nowhere: ` +
              (over.shown === "*" ? "gold drawn over a player" : "one player drawn over another"),
            got: `spectator's row ${over.at.row}: ${escaped(over.row)}`,
            spec: Requirements.spectatorView
          })
        }
      }
    })
}
