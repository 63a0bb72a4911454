import { Data } from "effect"
import type { Viewer } from "./state.js"

/** Refusals a client can cause; their wording belongs to the protocol. */
export class GameFull extends Data.TaggedError("GameFull")<{ readonly maxPlayers: number }> {}
export class EmptyName extends Data.TaggedError("EmptyName")<{}> {}
export class AlreadyJoined extends Data.TaggedError("AlreadyJoined")<{ readonly as: Viewer }> {}
export class NotJoined extends Data.TaggedError("NotJoined")<{}> {}
export class UnknownKeystroke extends Data.TaggedError("UnknownKeystroke")<{ readonly key: string }> {}
export class GameIsOver extends Data.TaggedError("GameIsOver")<{}> {}
export class NoRoomLeft extends Data.TaggedError("NoRoomLeft")<{}> {}
/** The server takes no new player for now (it is closing, or has lost its place in a fleet): not a rule of the game. */
export class NotAdmitting extends Data.TaggedError("NotAdmitting")<{}> {}

export type PlayRefusal = GameFull | EmptyName | AlreadyJoined | GameIsOver | NoRoomLeft | NotAdmitting
export type SpectateRefusal = AlreadyJoined | GameIsOver
export type KeyRefusal = UnknownKeystroke | NotJoined | GameIsOver
export type Refusal = PlayRefusal | SpectateRefusal | KeyRefusal
