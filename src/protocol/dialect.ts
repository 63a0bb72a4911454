import { PlayerLetters } from "../core/constants.js"
import type { Refusal } from "../core/refusals.js"
import { type Rules, rules2019, rules2021, type Variant } from "../core/rules.js"
import type { QuitReason } from "../core/state.js"
import type { ServerMessage } from "./messages.js"

/**
 * Dialects of the same protocol, by the year of their CS50 requirements: 2019 (`NO`,
 * `GAMEOVER`), and the later 2021 one, which says `QUIT GAME OVER:` for GAMEOVER and
 * `ERROR` where 2019 says `NO`. Users name the later one `--compat cs50-2021`, and the kit
 * `--dialect 2019|2021`; inside, it is this one type.
 */
export type Dialect = "2019" | "2021"
export const dialects: ReadonlyArray<Dialect> = ["2019", "2021"]

/** The rules a server of `dialect` plays by (its sight rule), with the chosen variant. */
export const rulesFor = (dialect: Dialect, variant: Variant): Rules => ({
  ...(dialect === "2019" ? rules2019 : rules2021),
  variant
})

/** The dialect a recording or a flag names, also in the words earlier versions wrote ("spec", "cs50-2021"). */
export const dialectNamed = (name: string): Dialect | undefined =>
  name === "2019" || name === "spec" ? "2019" : name === "2021" || name === "cs50-2021" ? "2021" : undefined

/**
 * What a server's message tells of its dialect, when it tells anything: a refusal (NO or
 * ERROR), or the form of its game over (GAMEOVER, or QUIT GAME OVER:). The one place the
 * dialect is recognised from the wire.
 */
export const dialectSaid = (message: ServerMessage, text: string): Dialect | undefined => {
  switch (message._tag) {
    case "No":
      return "2019"
    case "Error":
      return "2021"
    case "GameOver":
      return gameOverDialect(text)
    default:
      return undefined
  }
}

/** The dialect of a game over, by its form: GAMEOVER, or QUIT GAME OVER:. */
export const gameOverDialect = (text: string): Dialect => (text.startsWith("GAMEOVER") ? "2019" : "2021")

/** How a dialect's game over begins: what a client of it waits for. */
export const gameOverWords: Readonly<Record<Dialect, string>> = { 2019: "GAMEOVER", 2021: "QUIT GAME OVER:" }

/** What a refusal is called, in words a player reads on its status line. */
export const refusalText = (refusal: Refusal): string => {
  switch (refusal._tag) {
    case "GameFull":
      return `Sorry - the game is full; no more than ${refusal.maxPlayers} players can join.`
    case "EmptyName":
      return "Sorry - you must provide player's name."
    case "AlreadyJoined":
      return refusal.as === "spectator"
        ? "you are already the spectator"
        : `you are already playing as ${PlayerLetters[refusal.as]}`
    case "NotJoined":
      return "you have not joined this game; send PLAY name or SPECTATE first"
    case "UnknownKeystroke":
      return "unknown keystroke"
    case "GameIsOver":
      return "the game is over"
    case "NoRoomLeft":
      return "Sorry - there is no empty room spot left to drop a new player on."
    case "NotAdmitting":
      return "Sorry - the server takes no new player now; try again in a moment."
  }
}

/**
 * Whether a refusal says the sender never joined: ours, or a CS50 server's ("Please start
 * PLAY or SPECTATE first."). Sent to a client that did join, it means the server no longer
 * knows the client's address.
 */
export const saysNotJoined = (reason: string): boolean =>
  /not joined this game|start PLAY or SPECTATE first/i.test(reason)

/**
 * The answer to a refused request. Both dialects tell a nameless player to quit, as the
 * CS50 servers do; the later one also turns a full game away with QUIT, and says ERROR
 * where the spec says NO.
 */
export const refusalMessage = (dialect: Dialect, refusal: Refusal): ServerMessage => {
  const reason = refusalText(refusal)
  if (refusal._tag === "EmptyName") return { _tag: "Quit", reason }
  if (dialect === "2019") return { _tag: "No", reason }
  if (refusal._tag === "GameFull") return { _tag: "Quit", reason: "Game is full: no more players can join." }
  if (refusal._tag === "NotAdmitting") return { _tag: "Quit", reason }
  return { _tag: "Error", reason }
}

/** The answer to a datagram that names a message type but is badly formed. */
export const malformedMessage = (dialect: Dialect, reason: string): ServerMessage =>
  dialect === "2019" ? { _tag: "No", reason } : { _tag: "Error", reason }

export const quitText: Readonly<Record<QuitReason, string>> = {
  PlayerQuit: "Thanks for playing!",
  SpectatorQuit: "Thanks for watching!",
  SpectatorReplaced: "You have been replaced by a new spectator.",
  ShutDown: "server shutting down",
  Silent: "You were silent too long: the server counts you as having quit."
}

/** The game-over summary: one line per player who ever joined, letter, purse and name. */
export const summaryText = (
  standings: ReadonlyArray<{ readonly letter: string; readonly name: string; readonly purse: number }>
): string => {
  const width = Math.max(5, ...standings.map((each) => String(each.purse).length))
  return standings.map((each) => `${each.letter} ${String(each.purse).padStart(width)} ${each.name}\n`).join("")
}

/** GAMEOVER with its summary, as the dialect says it. */
export const gameOverMessage = (dialect: Dialect, summary: string): ServerMessage =>
  dialect === "2019" ? { _tag: "GameOver", summary } : { _tag: "Quit", reason: `GAME OVER:\n${summary}` }

/** A count of nuggets in words: `1 nugget`, `5 nuggets`. (The spec's status line keeps its own words.) */
export const nuggetCount = (count: number): string => `${count} nugget${count === 1 ? "" : "s"}`
