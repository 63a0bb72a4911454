/**
 * The game the bench plays, played again in this process by the real core: the server sends
 * a DISPLAY only to the viewers whose view changed, so the load learns from the core's own
 * notices which of its clients each key owes one, and waits for exactly those. The server is
 * `serve MAP SEED` and the load joins and presses keys one at a time, so both play the same
 * game; the mover's '@' is held against the shadow's after each key, so a shadow out of step
 * stops the bench rather than measuring the wrong thing.
 */
import { Effect, Either, Random } from "effect"
import { readFileSync } from "node:fs"
import { applyRequest, newGame } from "../../src/core/game.js"
import { parseMap } from "../../src/core/map.js"
import type { GameState, Request } from "../../src/core/state.js"
import { cellOffset } from "../../src/protocol/display.js"

export class ShadowGame {
  private state: GameState

  private constructor(state: GameState, private readonly players: number) {
    this.state = state
  }

  /** The game `serve mapFile seed` starts, joined as `Load.join` joins it: `players` in order, then the spectator. */
  static start(mapFile: string, seed: number, players: number): ShadowGame {
    const map = Either.getOrThrow(parseMap(readFileSync(mapFile, "utf8")))
    const game = new ShadowGame(Effect.runSync(Effect.withRandom(newGame(map), Random.make(seed))), players)
    for (let i = 0; i < players; i++) game.apply(`p${i}`, { _tag: "Play", name: `bench-${i + 1}` })
    game.apply("spectator", { _tag: "Spectate" })
    return game
  }

  /**
   * Player `mover` presses `key`: which of the load's clients (players by index, then the
   * spectator) are sent a DISPLAY for it, and where the mover's '@' then is in its DISPLAY.
   */
  key(mover: number, key: string): { readonly owed: ReadonlyArray<number>; readonly moverAt: number } {
    const transition = this.apply(`p${mover}`, { _tag: "Key", key })
    const owed: Array<number> = []
    for (const { notice, viewer } of transition.notices) {
      if (notice._tag === "Display") owed.push(viewer === "spectator" ? this.players : viewer)
    }
    return { owed, moverAt: cellOffset(this.state.players[mover]!.position, this.state.map.cols) }
  }

  private apply(client: string, request: Request) {
    const result = applyRequest(this.state, client, request)
    if (Either.isLeft(result)) throw new Error(`the shadow game refused ${request._tag} from ${client}: ${result.left._tag}`)
    this.state = result.right.state
    return result.right
  }
}
