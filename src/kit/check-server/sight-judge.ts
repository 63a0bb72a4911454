import { MaxPlayers, PlayerLetters } from "../../core/constants.js"
import { specRules } from "../../core/rules.js"
import type { GameState, Player } from "../../core/state.js"
import type { GameMap } from "../../core/map.js"
import { viewOf } from "../../core/view.js"
import { makeSight, type Sight, type SightRule } from "../../core/visibility.js"
import { viewText } from "../../protocol/display.js"

/**
 * Holds each player's DISPLAY against the spec's visibility rule, worked out by our own core
 * from the map and from where the spectator sees everyone. A player's DISPLAY and the
 * spectator's for the same moment come on different sockets, so each player's view is held
 * against the spectator's views just before and after it, and passes if one of them gives
 * exactly that view. Both sight rules are judged, for the dialect is known only later.
 */

export interface Mismatch {
  readonly letter: string
  /** The player's view as it came. */
  readonly got: ReadonlyArray<string>
  /** The nearest view the rule gives. */
  readonly expected: ReadonlyArray<string>
  /** Where the player stood. */
  readonly at: { readonly row: number; readonly col: number }
}

export interface Verdict {
  /** Player views held against a spectator view. */
  readonly judged: number
  readonly mismatches: number
  /** The first few mismatches, in full. */
  readonly examples: ReadonlyArray<Mismatch>
  /** Player views no spectator view could be paired with (the player stood elsewhere in all). */
  readonly unpaired: number
}

interface Moment {
  readonly positions: ReadonlyMap<string, number>
  readonly gold: ReadonlyArray<number>
  /** Where each player went since the moment before: the cells it stood on, in order. */
  readonly walks: ReadonlyMap<string, ReadonlyArray<number>>
}

interface Waiting {
  readonly letter: string
  readonly rows: ReadonlyArray<string>
  /** Index of the latest moment when it came. */
  readonly moment: number
}

/**
 * Which spectator views a player's view may belong to: up to `lookBack` before it (a server
 * may send the spectator every step of a run before the players get theirs) and `lookAhead`
 * after it.
 */
const lookBack = 16
const lookAhead = 2
const exampleCount = 3

const rules: ReadonlyArray<SightRule> = ["spec", "roomSpotsOnly"]

export class SightJudge {
  private readonly sights: Record<SightRule, Sight>
  /** Per rule and letter: what the player knew at the oldest moment kept. */
  private readonly known: Record<SightRule, Map<string, Uint8Array>> = { spec: new Map(), roomSpotsOnly: new Map() }
  private readonly moments: Array<Moment> = []
  /** Index of `moments[0]` among all moments. */
  private first = 0
  private readonly waiting: Array<Waiting> = []
  /** Letters whose arrival the spectator saw, so that all they ever knew is known. */
  private readonly followed = new Set<string>()
  private readonly verdicts: Record<SightRule, { judged: number; mismatches: number; examples: Array<Mismatch>; unpaired: number }> = {
    spec: { judged: 0, mismatches: 0, examples: [], unpaired: 0 },
    roomSpotsOnly: { judged: 0, mismatches: 0, examples: [], unpaired: 0 }
  }

  constructor(readonly map: GameMap) {
    this.sights = { spec: makeSight(map, "spec"), roomSpotsOnly: makeSight(map, "roomSpotsOnly") }
  }

  spectatorView(rows: ReadonlyArray<string>): void {
    if (rows.length !== this.map.rows || rows[0]!.length !== this.map.cols) return
    this.holdAgainstMap(rows)
    const positions = new Map<string, number>()
    const gold: Array<number> = []
    rows.forEach((line, row) => {
      for (let col = 0; col < line.length; col++) {
        const char = line[col]!
        if (char === "*") gold.push(row * this.map.cols + col)
        else if (char >= "A" && char <= "Z") positions.set(char, row * this.map.cols + col)
      }
    })
    const before = this.moments.at(-1)
    const walks = new Map<string, ReadonlyArray<number>>()
    for (const [letter, position] of positions) {
      const from = before?.positions.get(letter)
      if (from === undefined && before !== undefined) this.followed.add(letter)
      if (from !== position) walks.set(letter, from === undefined ? [position] : this.walk(from, position))
    }
    this.moments.push({ positions, gold, walks })
    this.judgeReady(false)
  }

  playerView(letter: string, rows: ReadonlyArray<string>): void {
    if (this.moments.length === 0 || !this.followed.has(letter)) return
    this.waiting.push({ letter, rows, moment: this.first + this.moments.length - 1 })
    this.judgeReady(false)
  }

  /** Judges what still waits, against the moments there are. */
  finish(): void {
    this.judgeReady(true)
  }

  verdict(rule: SightRule): Verdict {
    return this.verdicts[rule]
  }

  /** Spectator views held against the map, and the first few gridpoints shown wrong. */
  spectatorVerdict(): { readonly checked: number; readonly examples: ReadonlyArray<string> } {
    return { checked: this.spectatorChecked, examples: this.spectatorExamples }
  }

  private spectatorChecked = 0
  private readonly spectatorExamples: Array<string> = []

  /** The spectator sees the map as it is, with gold on room spots and players on spots. */
  private holdAgainstMap(rows: ReadonlyArray<string>) {
    this.spectatorChecked++
    for (let row = 0; row < rows.length && this.spectatorExamples.length < exampleCount; row++) {
      for (let col = 0; col < this.map.cols; col++) {
        const shown = rows[row]![col]!
        const map = String.fromCharCode(this.map.cells[row * this.map.cols + col]!)
        const fits = shown === map || (shown === "*" && map === ".") || (/[A-Z]/.test(shown) && (map === "." || map === "#"))
        if (fits) continue
        this.spectatorExamples.push(`row ${row} col ${col}: the map has '${map}', the spectator is shown '${shown}'`)
        break
      }
    }
  }

  /** The cells of a straight walk (a row, a column or a diagonal) from `from` to `to`; just `to` otherwise. */
  private walk(from: number, to: number): ReadonlyArray<number> {
    const cols = this.map.cols
    const dRow = Math.floor(to / cols) - Math.floor(from / cols)
    const dCol = (to % cols) - (from % cols)
    if (dRow !== 0 && dCol !== 0 && Math.abs(dRow) !== Math.abs(dCol)) return [to]
    const steps = Math.max(Math.abs(dRow), Math.abs(dCol))
    return Array.from({ length: steps }, (_, k) => from + (k + 1) * (Math.sign(dRow) * cols + Math.sign(dCol)))
  }

  private judgeReady(all: boolean) {
    const latest = this.first + this.moments.length - 1
    while (this.waiting.length > 0 && (all || this.waiting[0]!.moment + lookAhead <= latest)) this.judge(this.waiting.shift()!)
    // Keep the moments a waiting view may still need, and fold older ones into what was known.
    const keepFrom = Math.min(this.waiting[0]?.moment ?? latest, latest) - lookBack
    while (this.first < keepFrom && this.moments.length > 1) {
      const oldest = this.moments.shift()!
      this.first++
      for (const rule of rules) for (const [letter, cells] of oldest.walks) this.learn(rule, letter, cells, this.knownOf(rule, letter))
    }
  }

  private knownOf(rule: SightRule, letter: string): Uint8Array {
    let known = this.known[rule].get(letter)
    if (known === undefined) this.known[rule].set(letter, known = new Uint8Array(this.map.cells.length))
    return known
  }

  private learn(rule: SightRule, _letter: string, cells: ReadonlyArray<number>, known: Uint8Array) {
    for (const cell of cells) for (const seen of this.sights[rule].visibleFrom(cell)) known[seen] = 1
  }

  private judge(view: Waiting) {
    const self = view.rows.findIndex((line) => line.includes("@"))
    if (self === -1) return
    const at = self * this.map.cols + view.rows[self]!.indexOf("@")
    const got = view.rows.join("\n")
    const low = Math.max(this.first, view.moment - lookBack)
    const high = Math.min(this.first + this.moments.length - 1, view.moment + lookAhead)
    for (const rule of rules) {
      const verdict = this.verdicts[rule]
      let nearest: { expected: ReadonlyArray<string>; differences: number } | undefined
      for (let index = low; index <= high; index++) {
        if (this.moments[index - this.first]!.positions.get(view.letter) !== at) continue
        const expected = this.expectedView(rule, view.letter, index)
        if (expected.join("\n") === got) {
          nearest = { expected, differences: 0 }
          break
        }
        const differences = countDifferences(expected, view.rows)
        if (!nearest || differences < nearest.differences) nearest = { expected, differences }
      }
      if (!nearest) {
        verdict.unpaired++
        continue
      }
      verdict.judged++
      if (nearest.differences === 0) continue
      verdict.mismatches++
      if (verdict.examples.length < exampleCount) {
        verdict.examples.push({ letter: view.letter, got: view.rows, expected: nearest.expected, at: { row: self, col: view.rows[self]!.indexOf("@") } })
      }
    }
  }

  /** What `letter` sees at moment `index` by `rule`, worked out by the core. */
  private expectedView(rule: SightRule, letter: string, index: number): ReadonlyArray<string> {
    const known = this.knownOf(rule, letter).slice()
    for (let at = this.first; at <= index; at++) {
      const cells = this.moments[at - this.first]!.walks.get(letter)
      if (cells) this.learn(rule, letter, cells, known)
    }
    const moment = this.moments[index - this.first]!
    const players: Array<Player> = []
    for (let i = 0; i < MaxPlayers; i++) {
      const each = PlayerLetters[i]!
      const position = moment.positions.get(each)
      players.push({
        index: i,
        letter: each,
        name: "",
        client: each,
        position: position ?? 0,
        purse: 0,
        active: position !== undefined,
        known: each === letter ? known : new Uint8Array(0)
      })
    }
    const state: GameState = {
      // Only the view is drawn from this state: no draw is ever made from its generator.
      random: 0,
      rules: { ...specRules, sight: rule },
      map: this.map,
      sight: this.sights[rule],
      gold: new Map(moment.gold.map((cell) => [cell, 1])),
      goldRemaining: moment.gold.length,
      players,
      spectator: undefined,
      over: false
    }
    return viewText(viewOf(state, letter.charCodeAt(0) - 65)).split("\n").slice(0, -1)
  }
}

const countDifferences = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => {
  let count = 0
  for (let row = 0; row < a.length; row++) {
    const left = a[row]!
    const right = b[row] ?? ""
    for (let col = 0; col < left.length; col++) if (left[col] !== right[col]) count++
  }
  return count
}

/** The gridpoints where two views differ, as `row 5 col 12: expected '.', got ' '`, at most `max`. */
export const differences = (expected: ReadonlyArray<string>, got: ReadonlyArray<string>, max = 4): Array<string> => {
  const found: Array<string> = []
  for (let row = 0; row < expected.length && found.length < max; row++) {
    for (let col = 0; col < expected[row]!.length && found.length < max; col++) {
      const want = expected[row]![col]!
      const have = got[row]?.[col] ?? ""
      if (want !== have) found.push(`row ${row} col ${col}: expected '${want}', got '${have}'`)
    }
  }
  return found
}
