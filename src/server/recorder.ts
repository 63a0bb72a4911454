import { Effect, Layer } from "effect"
import type { RecordingError } from "../recording/lines.js"
import { type RecordingOptions, recordGame } from "../recording/writer.js"
import { LiveGame } from "./liveGame.js"

/** The game hosted here, recorded to a file as it is played (see `recordGame`), for as long as the program runs. */
export const recorderLayer = (options: Omit<RecordingOptions, "rules">): Layer.Layer<never, RecordingError, LiveGame> =>
  Layer.scopedDiscard(Effect.flatMap(LiveGame, (game) => recordGame(game, { ...options, rules: game.state().rules })))
