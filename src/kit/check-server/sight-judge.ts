import type { GameMap } from "../../core/map.js"
import { expectedPlayerView } from "../../core/view.js"
import { makeSight, type Sight, type SightRule } from "../../core/visibility.js"
import { viewText } from "../../protocol/display.js"
import { type Difference, differingCells } from "./sight-causes.js"
import { exampleCount, newTally, recordMismatch, type Tally, type ViewTally } from "./view-tally.js"
import { fitToMap, sameCells, shownWrong, sortedHas, straightWalk } from "./map-views.js"

/**
 * Holds each player's DISPLAY against the spec's visibility rule, worked out by our own core
 * from the map and from where the spectator sees everyone. A player's DISPLAY and the
 * spectator's for the same moment come on different sockets, so each player's view is held
 * against the spectator's views just before and after it, and passes if one of them gives
 * exactly that view. Both sight rules are judged: the dialect is known only later, if at
 * all, and which one a server follows is worth saying. The view a rule gives is the core's
 * (`expectedPlayerView`), from the map, where everyone stands, the piles and what the
 * player has seen on its way. Views larger than the map by blank padding (a blank last
 * column, a blank last row) are judged without it: the padding is a framing defect,
 * reported once, by display-framing.
 */

/** One spectator view: where everyone stood, and the piles. */
interface Scene {
  readonly positions: ReadonlyMap<string, number>
  readonly gold: ReadonlySet<number>
  /** Where each player went since the scene before: the cells it stood on, in order. */
  readonly walks: ReadonlyMap<string, ReadonlyArray<number>>
}

interface Waiting {
  readonly letter: string
  readonly rows: ReadonlyArray<string>
  /** Index of the latest scene when it came. */
  readonly scene: number
}

/** Which spectator views a player's view may belong to: `lookBack` before it (the spectator may get a run's steps first), `lookAhead` after. */
const lookBack = 16
const lookAhead = 2

const rules: ReadonlyArray<SightRule> = ["allSpots", "roomSpotsOnly"]

export class SightJudge {
  private readonly sights: Record<SightRule, Sight>
  /** Per rule and letter: what the player knew at the oldest scene kept. */
  private readonly known: Record<SightRule, Map<string, Uint8Array>> = { allSpots: new Map(), roomSpotsOnly: new Map() }
  private readonly scenes: Array<Scene> = []
  /** Index of `scenes[0]` among all scenes. */
  private first = 0
  private readonly waiting: Array<Waiting> = []
  /** Letters whose arrival the spectator saw, so that all they ever knew is known. */
  private readonly followed = new Set<string>()
  private readonly tallies: Record<SightRule, Tally> = { allSpots: newTally(), roomSpotsOnly: newTally() }

  constructor(readonly map: GameMap) {
    this.sights = { allSpots: makeSight(map, "allSpots"), roomSpotsOnly: makeSight(map, "roomSpotsOnly") }
    this.agreement = new Uint8Array(map.cells.length)
  }

  /** Views of another size than the map's, even without blank padding: not judged. */
  misfits = 0
  private spectatorChecked = 0
  private readonly spectatorExamples: Array<string> = []
  /** A server started afresh: a new game, whose views are judged from its own start. */
  newGame(): void {
    this.finish()
    this.scenes.length = 0
    this.waiting.length = 0
    this.first = 0
    this.followed.clear()
    for (const rule of rules) this.known[rule].clear()
  }

  spectatorView(shown: ReadonlyArray<string>): void {
    const rows = fitToMap(this.map, shown)
    if (rows === undefined) return void this.misfits++
    this.spectatorChecked++
    const wrong = this.spectatorExamples.length < exampleCount ? shownWrong(this.map, rows) : undefined
    if (wrong !== undefined) this.spectatorExamples.push(wrong)
    const positions = new Map<string, number>()
    const gold = new Set<number>()
    rows.forEach((line, row) => {
      for (let col = 0; col < line.length; col++) {
        const char = line.charAt(col)
        if (char === "*") gold.add(row * this.map.cols + col)
        else if (char >= "A" && char <= "Z") positions.set(char, row * this.map.cols + col)
      }
    })
    this.addScene(positions, gold)
  }

  /** A scene: where everyone stands and the piles, with where each player went since the scene before. */
  private addScene(positions: ReadonlyMap<string, number>, gold: ReadonlySet<number>) {
    const before = this.scenes.at(-1)
    const walks = new Map<string, ReadonlyArray<number>>()
    for (const [letter, position] of positions) {
      const from = before?.positions.get(letter)
      if (from === undefined && before !== undefined) this.followed.add(letter)
      if (from !== position) walks.set(letter, from === undefined ? [position] : straightWalk(this.map, from, position))
    }
    this.scenes.push({ positions, gold, walks })
    this.judgeReady(false)
  }

  /**
   * One of the checker's players is in the game at `position` (its own first DISPLAY says
   * so) or has left it: the spec asks for no DISPLAY to the spectator then, so the scene is
   * made as the spectator would have been shown it.
   */
  playerJoined(letter: string, position: { readonly row: number; readonly col: number }): void {
    const last = this.scenes.at(-1)
    if (last === undefined || last.positions.get(letter) !== undefined) return
    this.addScene(new Map([...last.positions, [letter, position.row * this.map.cols + position.col]]), last.gold)
  }

  playerLeft(letter: string): void {
    const last = this.scenes.at(-1)
    if (last === undefined || !last.positions.has(letter)) return
    this.addScene(new Map([...last.positions].filter(([each]) => each !== letter)), last.gold)
  }

  playerView(letter: string, shown: ReadonlyArray<string>): void {
    const rows = fitToMap(this.map, shown)
    if (rows === undefined) return void this.misfits++
    if (this.scenes.length === 0 || !this.followed.has(letter)) return
    this.waiting.push({ letter, rows, scene: this.first + this.scenes.length - 1 })
    this.judgeReady(false)
  }

  /** Judges what still waits, against the scenes there are. */
  finish(): void {
    this.judgeReady(true)
  }

  /** What each spot sees by `rule`. */
  sight(rule: SightRule): Sight {
    return this.sights[rule]
  }

  /** The view as the map's size (blank padding cut), or undefined if it is not. */
  fit(rows: ReadonlyArray<string>): ReadonlyArray<string> | undefined {
    return fitToMap(this.map, rows)
  }

  tally(rule: SightRule): ViewTally {
    return this.tallies[rule]
  }

  /** Spectator views held against the map, and the first few gridpoints shown wrong. */
  spectatorTally(): { readonly checked: number; readonly examples: ReadonlyArray<string> } {
    return { checked: this.spectatorChecked, examples: this.spectatorExamples }
  }

  private judgeReady(all: boolean) {
    const latest = this.first + this.scenes.length - 1
    for (let next = this.waiting[0]; next !== undefined && (all || next.scene + lookAhead <= latest); next = this.waiting[0]) {
      this.waiting.shift()
      this.judge(next)
    }
    // Keep the scenes a waiting view may still need, and fold older ones into what was known.
    const keepFrom = Math.min(this.waiting[0]?.scene ?? latest, latest) - lookBack
    while (this.first < keepFrom && this.scenes.length > 1) {
      const oldest = this.scenes.shift()
      this.first++
      if (oldest) for (const rule of rules) for (const [letter, cells] of oldest.walks) this.learn(rule, cells, this.knownOf(rule, letter))
    }
  }

  private knownOf(rule: SightRule, letter: string): Uint8Array {
    let known = this.known[rule].get(letter)
    if (known === undefined) this.known[rule].set(letter, known = new Uint8Array(this.map.cells.length))
    return known
  }

  private learn(rule: SightRule, cells: ReadonlyArray<number>, known: Uint8Array) {
    for (const cell of cells) for (const seen of this.sights[rule].visibleFrom(cell)) known[seen] = 1
  }

  private sceneAt(index: number): Scene | undefined {
    return this.scenes[index - this.first]
  }

  private judge(view: Waiting) {
    const self = view.rows.findIndex((line) => line.includes("@"))
    if (self === -1) return
    const selfCol = view.rows[self]?.indexOf("@") ?? 0
    const at = self * this.map.cols + selfCol
    const got = view.rows.join("\n") + "\n"
    const low = Math.max(this.first, view.scene - lookBack)
    const high = Math.min(this.first + this.scenes.length - 1, view.scene + lookAhead)
    // The scenes where the spectator showed the player where its view has it, nearest to when the view came first.
    const candidates: Array<number> = []
    for (let index = low; index <= high; index++) if (this.sceneAt(index)?.positions.get(view.letter) === at) candidates.push(index)
    const nearestFirst = [...candidates].sort((a, b) => Math.abs(a - view.scene) - Math.abs(b - view.scene) || a - b)
    // Scenes that differ nowhere in the player's sight nor in what it has seen give the same view: worked out once.
    const worked = new Map<string, Expected>()
    const byFirstRule = new Map<number, Expected>()
    const expected = (rule: SightRule, index: number): Expected => {
      const key = `${rule} ${this.inSight(rule, view.letter, index, at)}`
      const known = worked.get(key)
      if (known) return known
      const result = this.expectedAt(rule, view.letter, index, at, rule === rules[0] ? undefined : byFirstRule.get(index))
      worked.set(key, result)
      if (rule === rules[0]) byFirstRule.set(index, result)
      return result
    }
    for (const rule of rules) {
      const tally = this.tallies[rule]
      if (candidates.length === 0) {
        tally.unpaired++
        continue
      }
      tally.judged++
      if (nearestFirst.some((index) => expected(rule, index).text === got)) continue
      // Wrong only where this player's views were wrong before (a gridpoint it was shown once, and remembers): counted once, there.
      const wrongBefore = tally.seen.get(view.letter)
      const rowsAt = (index: number) => expected(rule, index).text.split("\n").slice(0, -1)
      if (wrongBefore !== undefined && nearestFirst.some((index) => differingCells(rowsAt(index), view.rows).every((cell) => wrongBefore.has(cell.row * this.map.cols + cell.col)))) {
        tally.echoes++
        continue
      }
      tally.mismatches++
      // None gives the view: the nearest (fewest gridpoints differ, the earliest of equals) is the example.
      let nearest: { expected: ReadonlyArray<string>; cells: ReadonlyArray<Difference> } | undefined
      for (const index of tally.examples.length >= exampleCount ? nearestFirst.slice(0, 1) : candidates) {
        const rows = rowsAt(index)
        const cells = differingCells(rows, view.rows)
        if (!nearest || cells.length < nearest.cells.length) nearest = { expected: rows, cells }
      }
      if (nearest) recordMismatch(tally, this.map.cols, { letter: view.letter, got: view.rows, expected: nearest.expected, at: { row: self, col: selfCol }, rule }, nearest.cells)
    }
  }

  /**
   * What sets the view of `letter` standing at `at` at scene `index` apart, by `rule`: how
   * many times it walked by then (what it has seen), and the piles and players in its sight.
   */
  private inSight(rule: SightRule, letter: string, index: number, at: number): string {
    let walked = 0
    for (let each = this.first; each <= index; each++) if (this.sceneAt(each)?.walks.has(letter)) walked++
    const visible = this.sights[rule].visibleFrom(at)
    const scene = this.sceneAt(index)
    const seen: Array<string | number> = [walked]
    for (const cell of scene?.gold ?? []) if (sortedHas(visible, cell)) seen.push(cell)
    for (const [each, position] of scene?.positions ?? []) if (each !== letter && sortedHas(visible, position)) seen.push(each, position)
    return seen.join(" ")
  }

  /** The view by `rule`, or `sameAs` (the first rule's) where both rules see and know the same. */
  private expectedAt(rule: SightRule, letter: string, index: number, at: number, sameAs: Expected | undefined): Expected {
    const known = this.knownAt(rule, letter, index)
    if (sameAs && this.rulesAgreeAt(at) && sameCells(sameAs.known, known)) return sameAs
    return { known, text: this.expectedText(rule, letter, index, at, known) }
  }

  /** What `letter` has seen by scene `index`, by `rule`. */
  private knownAt(rule: SightRule, letter: string, index: number): Uint8Array {
    const known = this.knownOf(rule, letter).slice()
    for (let each = this.first; each <= index; each++) {
      const cells = this.sceneAt(each)?.walks.get(letter)
      if (cells) this.learn(rule, cells, known)
    }
    return known
  }

  /** What `letter`, standing at `at` and knowing `known`, is shown at scene `index` by `rule`, as DISPLAY text: the core's view. */
  private expectedText(rule: SightRule, letter: string, index: number, at: number, known: Uint8Array): string {
    const scene = this.sceneAt(index)
    const players = [...(scene?.positions ?? [])].map(([each, position]) => ({ index: each.charCodeAt(0) - 65, position, active: true }))
    return viewText(expectedPlayerView(this.sights[rule], { index: letter.charCodeAt(0) - 65, position: at, known }, { gold: scene?.gold ?? new Set(), players }))
  }

  /** 1 where both rules see the same from a spot, 2 where they do not; 0 not worked out yet. */
  private readonly agreement: Uint8Array

  private rulesAgreeAt(spot: number): boolean {
    if (this.agreement[spot] === 0) {
      const [first, second] = rules.map((rule) => this.sights[rule].visibleFrom(spot))
      this.agreement[spot] = first && second && sameCells(first, second) ? 1 : 2
    }
    return this.agreement[spot] === 1
  }
}

interface Expected {
  readonly known: Uint8Array
  readonly text: string
}
