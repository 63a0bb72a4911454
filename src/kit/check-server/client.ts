import type { Effect } from "effect"
import { type GameReport, newReport, type Position, readDatagram, type Role } from "../../protocol/reader.js"
import { escaped } from "../conformance/escaping.js"
import { type Conversation, heard, lintServerMessage, newConversation } from "../conformance/lint.js"
import type { Arrival, Probe } from "./probe.js"

/**
 * One of the checker's clients on the server under check: a probe (its own socket) and what
 * the server has told it, read by the same reader as our client, as liberally; what it
 * broke of the spec, as each datagram came; and what the checks look back on (its welcome,
 * its first GOLD, where its own views put it).
 */

/** Datagrams kept as a client's welcome: OK, GRID, GOLD and DISPLAY, and a few more. */
const welcomeLength = 6

/** Whether `client`'s welcome has all of `kinds`. */
export const welcomed = (client: Client, kinds: ReadonlyArray<string>) => kinds.every((kind) => client.welcome.some((each) => each.kind === kind))

/** A GOLD as it came: what it says was collected, the purse and the nuggets left. */
export interface GoldSaid {
  readonly n: number
  readonly p: number
  readonly r: number
  /** The datagram, escaped, for reports. */
  readonly text: string
}

export class Client {
  private told: GameReport
  private conversation: Conversation
  private latestGold: GoldSaid | undefined
  private over: string | undefined
  private first: ReadonlyArray<string> | undefined
  private askedToQuit = false
  /** What came first (its first few datagrams): how the server welcomed it. */
  readonly welcome: Array<Arrival> = []
  /** Where its own DISPLAYs put it, each time that changed: when (ms since its probe opened), and the spectator views counted by then. */
  readonly places: Array<{ readonly seq: number; readonly position: Position; readonly spectatorViews: number }> = []
  /** The place of its first view among all datagrams its game's clients got. */
  firstViewSeq: number | undefined
  /** Its first GOLD, as it came. */
  firstGold: GoldSaid | undefined
  /** Every GOLD it got, in order: each is held against the truth when it was sent, not only the last. */
  readonly golds: Array<GoldSaid> = []
  /** The spectator's views just before and just after its latest view came: the game as it stood then. */
  spectatorThen: ReadonlyArray<string> | undefined
  spectatorAfter: ReadonlyArray<string> | undefined

  constructor(readonly probe: Probe, readonly role: Role, readonly name: string) {
    this.told = newReport(role)
    this.conversation = { ...newConversation, role }
  }

  /** What the server has told it, as our client reads it. */
  get report(): GameReport {
    return this.told
  }

  /** The latest GOLD it got. */
  get gold() {
    return this.latestGold
  }

  /** The game over as it came: GAMEOVER or QUIT GAME OVER:. */
  get gameOver(): string | undefined {
    return this.over
  }

  /** Its first view of the game. */
  get firstView(): ReadonlyArray<string> | undefined {
    return this.first
  }

  /** It asked to quit (sent Q). */
  get left(): boolean {
    return this.askedToQuit
  }

  /** How the server knows it now, for reports: `player C`, `the spectator`, `a client that never joined`. */
  get who(): string {
    if (this.role === "player" && this.told.letter !== undefined) return `player ${this.told.letter}`
    if (this.role === "spectator" && this.told.joined) return "the spectator"
    return "a client that never joined"
  }

  /** Sends `message` to the server. */
  send(message: string | Uint8Array): Effect.Effect<void> {
    if (message === "KEY Q") this.askedToQuit = true
    return this.probe.send(message)
  }

  /** Takes in what came; gives what it broke of the spec, and its new view if it changed. */
  hear(arrival: Arrival) {
    // What comes after it was told to go is judged by the check that told it (quit, spectator-replacement), once.
    const toldToGo = this.told.ending !== undefined
    const linted = lintServerMessage(this.conversation, arrival.bytes)
    this.conversation = heard(linted.conversation, arrival.bytes, arrival.at)
    const before = this.told.view
    if (this.welcome.length < welcomeLength) this.welcome.push(arrival)
    const was = this.told.position
    this.told = readDatagram(this.told, arrival.bytes)
    const message = arrival.message
    if (message?._tag === "Gold" || message?._tag === "GoldSteal") {
      this.latestGold = { n: message._tag === "Gold" ? message.collected : message.change, p: message.purse, r: message.remaining, text: escaped(arrival.text, 40) }
      this.firstGold ??= this.latestGold
      this.golds.push(this.latestGold)
    }
    if (message?._tag === "GameOver") this.over ??= arrival.text
    const newView = this.told.view !== before ? this.told.view : undefined
    this.first ??= newView
    const now = this.told.position
    return { flags: toldToGo ? [] : linted.flags, newView, moved: now !== undefined && (was === undefined || was.row !== now.row || was.col !== now.col) }
  }
}
