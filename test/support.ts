import { Effect, Either, Random } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { applyKey, newGame } from "../src/core/game.js"
import { rules2019 } from "../src/core/rules.js"
import type { ClientId, GameState, Player, Viewer } from "../src/core/state.js"
import { type GameMap, mapText, parseMap } from "../src/core/map.js"
import { viewOf } from "../src/core/view.js"
import { makeSight } from "../src/core/visibility.js"
import { viewText } from "../src/protocol/display.js"
import { digestOf, formatName, formatVersion } from "../src/recording/format.js"
import { version } from "../src/version.js"

export const mapsDir = fileURLToPath(new URL("../maps/", import.meta.url))

export const loadMap = (name: string): GameMap => {
  const parsed = parseMap(readFileSync(mapsDir + name, "utf8"))
  if (Either.isLeft(parsed)) throw new Error(`${name}: ${parsed.left.message}`)
  return parsed.right
}

export const cell = (map: GameMap, row: number, col: number) => row * map.cols + col

/** A game with no gold and no players, for placing things by hand. */
export const emptyGame = (map: GameMap): GameState => ({
  random: 0,
  rules: rules2019,
  map,
  sight: makeSight(map, "allSpots"),
  gold: new Map(),
  goldRemaining: 0,
  players: [],
  spectator: undefined,
  over: false
})

/** Puts a new player exactly at `position`, as `addPlayer` would have if the RNG had chosen it. */
export const placePlayer = (state: GameState, client: ClientId, name: string, position: number): GameState => {
  const index = state.players.length
  const known = new Uint8Array(state.map.cells.length)
  for (const seen of state.sight.visibleFrom(position)) known[seen] = 1
  const player: Player = {
    index,
    letter: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[index]!,
    name,
    client,
    position,
    purse: 0,
    active: true,
    known
  }
  return { ...state, players: [...state.players, player] }
}

export const seeded = <A, E>(seed: number, effect: Effect.Effect<A, E>) =>
  Effect.runSync(Effect.withRandom(effect, Random.make(seed)))

export const seededGame = (map: GameMap, seed: number) => seeded(seed, newGame(map))

/** Presses each key in turn and returns the final state; fails the test on a typed error. */
export const pressKeys = (state: GameState, client: ClientId, keys: string): GameState => {
  let current = state
  for (const key of keys) current = Either.getOrThrow(applyKey(current, client, key)).state
  return current
}

/** What `viewer` sees, as DISPLAY text worked out from scratch: the plain reference for the fast paths. */
export const renderView = (state: GameState, viewer: Viewer): string => viewText(viewOf(state, viewer))

/** A recording written by hand on the example map: Alice joins, then presses `keys`, one a second (with seed 6, each of `hhhhllllkkjj` moves her). */
export const walkRecording = (keys: string): string => {
  const map = mapText(loadMap("main.txt"))
  return [
    { format: formatName, formatVersion, program: version, seed: 6, rules: rules2019, dialect: "2019", map, mapDigest: digestOf(map), started: "2026-01-01T00:00:00.000Z" },
    { t: 0, client: 0, message: "PLAY Alice" },
    ...Array.from(keys, (key, i) => ({ t: 1000 * (i + 1), client: 0, message: `KEY ${key}` }))
  ].map((line) => JSON.stringify(line)).join("\n") + "\n"
}
