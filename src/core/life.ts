import type { ClientId, GameState, Request, Transition } from "./state.js"

/**
 * A game's life, as one state: it is played, then it ends once, in one of four ways, and
 * keeps the state it ended in (the standings, the piles left). `Over`: every nugget was
 * found; `Stopped`: it ended with nuggets left, everyone getting the standings so far
 * (whoever runs it ended it, or its last player left with every letter used); `Failed`: a
 * defect stopped it, and it takes no more messages; `ShutDown`: whoever runs it told
 * everyone to quit. Only an `Over` game has winners (the words: `protocol/endings.ts`).
 */
export type Life =
  | { readonly _tag: "Playing" }
  | { readonly _tag: "Over"; readonly state: GameState }
  | { readonly _tag: "Stopped"; readonly state: GameState }
  | { readonly _tag: "Failed"; readonly defect: string; readonly state: GameState }
  | {
    readonly _tag: "ShutDown"
    readonly state: GameState
    /** Its host's operator ended it (`DELETE /api/games/ID`), rather than the host stopping. */
    readonly byOperator?: true
  }

export type Ending = Exclude<Life, { readonly _tag: "Playing" }>

/**
 * What happened in a game, in order, on its one feed: each request it took (`Took`), its
 * end (`Ended`, once), and, from its idle clock, that no one has been in it for the idle
 * timeout (`Deserted`, again each step while it stays so).
 */
export type GameEvent =
  | {
    readonly _tag: "Took"
    readonly client: ClientId
    readonly request: Request
    readonly transition: Transition
  }
  | { readonly _tag: "Ended"; readonly ending: Ending }
  | { readonly _tag: "Deserted" }

export type Took = Extract<GameEvent, { readonly _tag: "Took" }>
