import { Duration, Effect, Either, Random, type Scope } from "effect"
import { applyRequest, newGame } from "../../src/core/game.js"
import { isSpot, type GameMap } from "../../src/core/map.js"
import { firstStepOnGrid } from "../../src/core/path.js"
import { rules2019, type Variant } from "../../src/core/rules.js"
import type { GameEvent } from "../../src/core/life.js"
import type { ClientId, GameState, Request } from "../../src/core/state.js"
import type { LineFile, RecordingError } from "../../src/recording/lines.js"
import { recordGame } from "../../src/recording/writer.js"

/**
 * A game played by the real core and recorded by the real recorder, with no sockets: the
 * players join, then walk in turn to the nearest gold, `moves` keys in all or to the end
 * (at most 10,000).
 * What the file holds replays with `nuggets replay --check`.
 */
export interface PlayOptions {
  /** Where it is recorded: a file (`openLineFile`), or a recording the archive gave a game. */
  readonly to: Effect.Effect<LineFile, RecordingError, Scope.Scope>
  readonly map: GameMap
  readonly seed: number
  readonly players: ReadonlyArray<string>
  /** Keys to press (all players together); the game may end before. Undefined: to the end. */
  readonly moves?: number
  readonly variant?: Variant
  /** A pause between keys, so that a game lasts (the recorder writes every 100 ms). */
  readonly pace?: Duration.DurationInput
}

export const playRecorded = (options: PlayOptions): Effect.Effect<GameState, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const rules = { ...rules2019, variant: options.variant ?? "classic" }
    let state = yield* newGame(options.map, rules).pipe(Effect.withRandom(Random.make(options.seed)))
    const followers = new Set<(event: GameEvent) => void>()
    const follow = (follower: (event: GameEvent) => void) =>
      Effect.acquireRelease(Effect.sync(() => void followers.add(follower)), () => Effect.sync(() => void followers.delete(follower)))
    const publish = (event: GameEvent) => followers.forEach((follower) => follower(event))
    yield* recordGame(
      { follow, state: () => state, life: () => (state.over ? { _tag: "Over", state } : { _tag: "Playing" }) },
      { to: options.to, seed: options.seed, rules, dialect: "2019", map: options.map }
    )
    const take = (client: ClientId, request: Request) => {
      const transition = Either.getOrThrow(applyRequest(state, client, request))
      state = transition.state
      publish({ _tag: "Took", client, request, transition })
      if (state.over) publish({ _tag: "Ended", ending: { _tag: "Over", state } })
    }
    options.players.forEach((name, i) => take(`client-${i}`, { _tag: "Play", name }))
    const { map } = options
    const passable = (cell: number) => isSpot(map.cells[cell]!)
    // Walkers in turn can swap places back and forth for ever: after a while with no gold taken, the first walks alone.
    let sinceGold = 0
    for (let pressed = 0; !state.over && pressed < (options.moves ?? 10_000); pressed++) {
      const mover = state.players[sinceGold > 20 ? 0 : pressed % state.players.length]!
      const goldBefore = state.goldRemaining
      const key = firstStepOnGrid(map.rows, map.cols, mover.position, passable, (cell) => state.gold.has(cell))
      if (key === undefined) break
      take(mover.client, { _tag: "Key", key })
      sinceGold = state.goldRemaining === goldBefore ? sinceGold + 1 : 0
      if (options.pace !== undefined) yield* Effect.sleep(options.pace)
    }
    return state
  })
