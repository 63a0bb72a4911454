import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import { readFile, writeFile } from "node:fs/promises"
import { farewell } from "../client/screen.js"
import { terminalLayer } from "../client/terminal.js"
import { castOf } from "../recording/cast.js"
import { parseRecording, type Recording } from "../recording/format.js"
import { recordedFrames, type Watching } from "../recording/frames.js"
import { watchRecording } from "../recording/player.js"
import { replayRecording } from "../recording/replay.js"
import { CliError } from "./error.js"
import { decimalOption, leaf } from "./runner.js"
import { startReplayWeb } from "../web/replay.js"
import { fileFailure, noColorHelp, noColorOption, webAddress, webOption } from "./shared.js"

interface ReplayOptions {
  readonly file: string
  readonly as: string
  readonly speed: number
  readonly check: boolean
  readonly cast: Option.Option<string>
  readonly noColor: boolean
  readonly web: Option.Option<string>
}

const loadRecording = (file: string) =>
  Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: (error) => new CliError({ message: `${file} — cannot read it: ${fileFailure(error)}` })
  }).pipe(
    Effect.flatMap((text) => Either.mapLeft(parseRecording(text), (why) => new CliError({ message: `${file} — ${why}` })))
  )

const watching = (as: string): Effect.Effect<Watching, CliError> =>
  as === "spectator" || /^[A-Z]$/.test(as)
    ? Effect.succeed(as)
    : Effect.fail(new CliError({ message: `--as — a player's letter (A..Z) or spectator, not '${as}'` }))

const framesOf = (file: string, recording: Recording, as: Watching) =>
  recordedFrames(recording, as).pipe(
    Effect.mapError((mismatch) => new CliError({ message: `${file} — ${mismatch.message}` })),
    Effect.filterOrFail(
      ({ frames }) => frames.length > 0,
      () => new CliError({ message: `${file} — player ${as} never joined this game` })
    )
  )

const replay = (options: ReplayOptions) =>
  Effect.gen(function*() {
    const { file } = options
    const recording = yield* loadRecording(file)
    const as = yield* watching(options.as)
    const web = yield* webAddress(options.web)
    if (Option.isSome(web)) {
      // Served until interrupted (Ctrl-C): the page plays the recording at its own pace.
      return yield* Effect.scoped(
        startReplayWeb(recording, web.value).pipe(
          Effect.mapError((error) => new CliError({ message: error.reason === "BadRecording" ? `${file} — ${error.message}` : error.message })),
          Effect.flatMap(({ url }) => Console.log(`Watch ${file} in a browser: ${url}`)),
          Effect.zipRight(Effect.never)
        )
      )
    }
    if (options.check) {
      const result = yield* replayRecording(recording).pipe(
        Effect.mapError((mismatch) => new CliError({ message: `${file} — ${mismatch.message}` }))
      )
      const end = result.ended === "game over"
        ? "and the summary match"
        : result.ended === "shut down"
        ? "and the summary match (the server was stopped before the end)"
        : "match (the recording stops before the end)"
      return yield* Console.log(`${file}: OK — ${result.moves} moves, ${result.checkpoints} checkpoints ${end}`)
    }
    const { frames, result } = yield* framesOf(file, recording, as)
    if (Option.isSome(options.cast)) {
      const out = options.cast.value
      const cast = castOf(frames, {
        title: `Nuggets, as ${as === "spectator" ? "the spectator" : `player ${as}`} saw it`,
        started: recording.header.started,
        moves: result.moves
      })
      yield* Effect.tryPromise({
        try: () => writeFile(out, cast),
        catch: (error) => new CliError({ message: `${out} — cannot write the cast: ${fileFailure(error)}` })
      })
      return yield* Console.log(`${out}: ${frames.length} frames of ${as === "spectator" ? "the spectator" : `player ${as}`}`)
    }
    const watched = yield* watchRecording(frames, options.speed).pipe(Effect.provide(terminalLayer({ noColor: options.noColor })))
    const width = process.stdout.columns || 80
    yield* Console.log(
      watched.exit
        ? farewell(watched.exit, width)
        : watched.done === "end"
        ? `the recording ends at move ${watched.move} of ${result.moves}`
        : `stopped at move ${watched.move} of ${result.moves}`
    )
  })

const replayCommand = Command.make(
  "replay",
  {
    file: Args.text({ name: "FILE" }),
    as: Options.text("as").pipe(Options.withDefault("spectator")),
    speed: decimalOption("speed", 0.125, 64).pipe(Options.withDefault(1)),
    check: Options.boolean("check"),
    cast: Options.text("cast").pipe(Options.optional),
    noColor: noColorOption,
    web: webOption
  },
  replay
)

export const replayNode = leaf(replayCommand, {
  summary: "Watch a recorded game again in the terminal (see serve --record), check it, or make an asciinema cast of it.",
  usage: "[options] FILE",
  args: [{ term: "FILE", text: "a recording made by 'nuggets serve --record' or 'nuggets play --record'" }],
  options: [
    { term: "--as WHO", text: "whose screen: spectator (the whole map) or a player's letter", default: "spectator" },
    { term: "--speed X", text: "times the recorded pace, 0.125..64 (idle gaps are cut to 2 s)", default: "1" },
    { term: "--check", text: "replay with the real core and compare every checkpoint and the summary; exit 1 at the first difference" },
    { term: "--cast OUT", text: "write an asciinema v2 cast of that screen to OUT instead of showing it" },
    { term: "--web [HOST:]PORT", text: "show it in a browser instead, with pause and speed controls, until Ctrl-C" },
    noColorHelp
  ],
  more: `Keys while watching:
  space     pause or go on
  + -       faster, slower
  .         one move (pauses)
  q         quit`
})
