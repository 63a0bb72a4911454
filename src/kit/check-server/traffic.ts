import { type Dialect, dialectSaid, gameOverWords } from "../../protocol/dialect.js"
import { escaped } from "../conformance/escaping.js"
import type { Flag } from "../conformance/lint.js"
import type { Arrival } from "./probe.js"
import type { SightJudge } from "./sight-judge.js"

/**
 * The observer of a `check server` run: everything the server sent to any of the checker's
 * clients passes here as it comes, and is gathered for the checks that judge all traffic at
 * the end: what broke the spec, how much came, the first GOLD, the dialect the server
 * speaks, and the views the sight judge holds against the visibility rule. It is the run's,
 * across every server the checker started (each a game, numbered from 1); checks only read it.
 */

/** A flag raised by a datagram, with who got it and the datagram itself. */
export interface FlagSeen {
  readonly client: string
  readonly flag: Flag
  readonly datagram: string
  /** The datagram as it came, byte for byte (latin1). */
  readonly raw: string
  /** The game it came in (1 for the first server started). */
  readonly game: number
  /** The step under way when it came. */
  readonly step: string
}

/** Who a datagram came to, as the observer needs it. */
export interface Addressee {
  readonly label: string
  readonly role: "player" | "spectator"
  /** Its letter, once it has one. */
  readonly letter: string | undefined
  /** Its view, when this datagram changed it. */
  readonly newView: ReadonlyArray<string> | undefined
  /** It is the spectator the run watches the game through. */
  readonly watching: boolean
  /** This is a player's first view: where it was dropped. */
  readonly first: boolean
}

export class Traffic {
  private readonly seen: Array<FlagSeen> = []
  private count = 0
  private readonly firstGold = new Map<number, number>()
  private known: Dialect | undefined
  private knownWhy: string
  private game = 1

  constructor(given: Dialect | undefined, private readonly judge: SightJudge | undefined) {
    this.known = given
    this.knownWhy = given ? "as given" : "not known yet"
  }

  /** What comes from now on comes from a server started afresh. */
  newGame(): void {
    this.game++
    this.judge?.newGame()
  }

  /** What broke the spec, datagram by datagram. */
  get flags(): ReadonlyArray<FlagSeen> {
    return this.seen
  }

  /** The step under way, set by the run before each: what a flag is said to have come in. */
  step = ""
  /** Steps (`game step`) during which the server died of what they sent. */
  private readonly crashed = new Set<string>()
  /** A letter the server handed out beyond the limit (`OK [`), in a game: what is drawn for it is player-limit's finding. */
  private beyond: { readonly game: number; readonly letter: string } | undefined

  /** The server died of what `step` sent, in this game. */
  crashedDuring(step: string): void {
    this.crashed.add(`${this.game} ${step}`)
  }

  /** The server let a player in beyond the limit, with this letter. */
  letInBeyondLimit(letter: string): void {
    this.beyond = { game: this.game, letter }
  }

  /** Whether a flag is another finding's consequence, reported there. */
  explained(seen: FlagSeen): boolean {
    if (this.crashed.has(`${seen.game} ${seen.step}`)) return true
    const beyond = this.beyond
    return beyond !== undefined && seen.game === beyond.game && seen.flag.reason.includes(escaped(beyond.letter))
  }

  /** The texts of every QUIT that came (not game overs). */
  readonly quitTexts = new Set<string>()

  /** Datagrams received from the server, by all clients. */
  get received(): number {
    return this.count
  }

  /** The nuggets each game began with, by the first GOLD anyone got in it (left to find, and in the receiver's purse). */
  get firstRemaining(): ReadonlyMap<number, number> {
    return this.firstGold
  }

  /** The dialect, given or guessed from what the server sent; undefined while nothing told. */
  get dialect(): Dialect | undefined {
    return this.known
  }

  /** How the dialect was chosen: "as given", or "guessed: ...". */
  get dialectWhy(): string {
    return this.knownWhy
  }

  heard(to: Addressee, arrival: Arrival, flags: ReadonlyArray<Flag>): void {
    this.count++
    for (const flag of flags) this.seen.push({ client: to.label, flag, datagram: escaped(arrival.text), raw: arrival.text, game: this.game, step: this.step })
    if (arrival.message?._tag === "Quit") this.quitTexts.add(arrival.message.reason)
    // Left to find, and what its receiver has found: a player dropped on a pile has some already.
    if (arrival.message?._tag === "Gold" && !this.firstGold.has(this.game)) this.firstGold.set(this.game, arrival.message.remaining + Math.max(0, arrival.message.purse))
    this.learnDialect(to, arrival)
    if (arrival.message?._tag === "Quit" && to.role === "player" && to.letter !== undefined) this.judge?.playerLeft(to.letter)
    if (to.newView === undefined) return
    if (to.role === "spectator" && to.watching) return this.judge?.spectatorView(to.newView)
    if (to.role !== "player" || to.letter === undefined) return
    const self = to.first ? to.newView.findIndex((row) => row.includes("@")) : -1
    if (self !== -1) this.judge?.playerJoined(to.letter, { row: self, col: to.newView[self]!.indexOf("@") })
    this.judge?.playerView(to.letter, to.newView)
  }

  /** Messages only one dialect sends tell which the server speaks, when it was not given. */
  private learnDialect(to: Addressee, { kind, message, text }: Arrival) {
    if (this.known !== undefined) return
    const said = message === undefined ? undefined : dialectSaid(message, text)
    if (said !== undefined) {
      this.guess(said, kind === "GAMEOVER" ? `its game over came as ${gameOverWords[said]}` : `it answered ${escaped(text, 40)}`)
    } else if (kind === "QUIT" && to.role === "player" && to.letter === undefined) {
      // The 2021 dialect refuses a player (a full game) with QUIT where 2019 says NO.
      this.guess("2021", "a player it did not let in was answered QUIT")
    }
  }

  private guess(dialect: Dialect, why: string) {
    this.known = dialect
    this.knownWhy = `guessed: ${why}`
  }
}
