import type { SightRule } from "../../core/visibility.js"
import type { Difference, Sample } from "./sight-causes.js"

/** How the players' views fared against a sight rule, kept by the sight judge as it judges them. */

export interface Mismatch {
  readonly letter: string
  /** The player's view as it came. */
  readonly got: ReadonlyArray<string>
  /** The nearest view the rule gives. */
  readonly expected: ReadonlyArray<string>
  /** Where the player stood. */
  readonly at: { readonly row: number; readonly col: number }
  readonly rule: SightRule
}

/** The first few mismatches are kept whole, as examples; up to `sampleCount` first differences, to find a cause from. */
export const exampleCount = 3
const sampleCount = 60

/** How the players' views fared against one sight rule. */
export interface Tally {
  /** Player views held against a spectator view, and how many differ. */
  judged: number
  mismatches: number
  /** Views that differ only where an earlier view of the same player differed: what it remembers. */
  echoes: number
  /** The first few mismatches, in full. */
  readonly examples: Array<Mismatch>
  /** Player views no spectator view could be paired with (the player stood elsewhere in all). */
  unpaired: number
  /** The gridpoints where the views that differ differ, all told. */
  readonly cells: Set<number>
  /** Views that differ, each with the gridpoints where it differs first for its player: what a cause is found from. */
  readonly samples: Array<Sample>
  /** Per letter, the gridpoints where its views have differed so far. */
  readonly seen: Map<string, Set<number>>
}

export type ViewTally = Readonly<Omit<Tally, "seen">>

export const newTally = (): Tally => ({ judged: 0, mismatches: 0, echoes: 0, examples: [], unpaired: 0, cells: new Set(), samples: [], seen: new Map() })

/** A view that differs from the nearest the rule gives, at `cells`: counted, and kept as an example and a sample while there is room. */
export const recordMismatch = (tally: Tally, cols: number, mismatch: Mismatch, cells: ReadonlyArray<Difference>): void => {
  // The gridpoints that differ here first, for this player: later views that differ there only remember them.
  const before = tally.seen.get(mismatch.letter) ?? new Set<number>()
  tally.seen.set(mismatch.letter, before)
  const fresh = cells.filter((cell) => !before.has(cell.row * cols + cell.col))
  for (const cell of cells) {
    tally.cells.add(cell.row * cols + cell.col)
    before.add(cell.row * cols + cell.col)
  }
  if (fresh.length > 0 && tally.samples.length < sampleCount) tally.samples.push({ at: mismatch.at, differences: fresh, expected: mismatch.expected, got: mismatch.got })
  if (tally.examples.length < exampleCount) tally.examples.push(mismatch)
}
