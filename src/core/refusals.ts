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

export type PlayRefusal = GameFull | EmptyName | AlreadyJoined | GameIsOver | NoRoomLeft
export type SpectateRefusal = AlreadyJoined | GameIsOver
export type KeyRefusal = UnknownKeystroke | NotJoined | GameIsOver
export type Refusal = PlayRefusal | SpectateRefusal | KeyRefusal
