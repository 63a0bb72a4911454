import * as C from "./constants.js"
import type { SightRule } from "./visibility.js"

/**
 * `classic`: the requirements spec. `steal`: moving onto another player also takes 10% of
 * its purse, rounded down.
 */
export type Variant = "classic" | "steal"
export const variants: ReadonlyArray<Variant> = ["classic", "steal"]

export interface Rules {
  readonly maxPlayers: number
  readonly maxNameLength: number
  readonly goldTotal: number
  readonly goldMinPiles: number
  readonly goldMaxPiles: number
  readonly sight: SightRule
  readonly variant: Variant
}

/** The rules as the 2019 requirements spec states them. */
export const rules2019: Rules = {
  maxPlayers: C.MaxPlayers,
  maxNameLength: C.MaxNameLength,
  goldTotal: C.GoldTotal,
  goldMinPiles: C.GoldMinNumPiles,
  goldMaxPiles: C.GoldMaxNumPiles,
  sight: "allSpots",
  variant: "classic"
}

/** The later CS50 servers' reading of the rules: sight passes through room spots only. */
export const rules2021: Rules = { ...rules2019, sight: "roomSpotsOnly" }
