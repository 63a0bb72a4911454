import { Console, Effect, Either, Option } from "effect"
import { PlayerLetters } from "../core/constants.js"
import type { Viewer } from "../core/state.js"
import { writeFile } from "node:fs/promises"
import { farewell } from "../client/screen.js"
import { terminalLayer } from "../client/terminal.js"
import { castOf } from "../client/playback/cast.js"
import { recordedMoments } from "../client/playback/moments.js"
import { watchRecording } from "../client/playback/controls.js"
import { replayKeyHelp } from "../client/keymap.js"
import { parseRecording } from "../recording/format.js"
import { replayRecording } from "../recording/replay.js"
import { startReplayWeb } from "../web/recorded.js"
import { needsTerminal, printWidth } from "./client.js"
import { command, decimal, excludes, flag, needs, optional, text, textArg, withDefault } from "./command.js"
import { errnoOf, errnoWords } from "../net/errno.js"
import { CliError } from "./error.js"
import { checkOutputs, readText, stdoutPath } from "./files.js"
import { noColorOption, overwriteOption, webAddress, webLines, webNameOption } from "./options.js"

const loadRecording = (file: string) =>
  readText(file, "the recording").pipe(
    Effect.flatMap((text) => Either.mapLeft(parseRecording(text), (why) => new CliError({ message: `${file} — ${why}` })))
  )

/** Whose screen: `spectator`, or a player's letter in either case. */
const viewerOf = (as: string): Effect.Effect<Viewer, CliError> =>
  as.toLowerCase() === "spectator"
    ? Effect.succeed("spectator")
    : /^[A-Za-z]$/.test(as)
    ? Effect.succeed(PlayerLetters.indexOf(as.toUpperCase()))
    : Effect.fail(new CliError({ message: `--as — a player's letter (A..Z) or spectator, not '${as}'` }))

const whose = (viewer: Viewer) => (viewer === "spectator" ? "the spectator" : `player ${PlayerLetters[viewer]}`)

const replayOptions = {
  as: text("as", "WHO", "whose screen: spectator (the whole map) or a player's letter").pipe(withDefault("spectator")),
  speed: decimal("speed", "X", 0.125, 64, "times the recorded pace, 0.125..64 (idle gaps are cut to 2 s)").pipe(withDefault(1)),
  check: flag("check", "replay with the real core and compare every checkpoint and the summary; exit 1 at the first difference"),
  cast: text("cast", "OUT", "write an asciinema v2 cast of that screen to OUT (- for stdout) instead of showing it").pipe(
    optional()
  ),
  overwrite: overwriteOption("--cast"),
  noColor: noColorOption,
  web: text("web", "[HOST:]PORT", "show it in a browser instead, with its own pause and speed controls, until Ctrl-C").pipe(
    optional()
  ),
  webName: webNameOption
}

export const replayNode = command(
  "replay",
  {
    summary: "Watch a recorded game again in the terminal (see serve --record), check it, or make an asciinema cast of it.",
    args: { file: textArg("FILE", "a recording made by 'nuggets serve --record' or 'nuggets play --record'") },
    options: replayOptions,
    rules: [
      excludes("--check", "--cast", "--web", "--as", "--speed", "--no-color"),
      excludes("--web", "--cast", "--as", "--speed", "--no-color"),
      needs("--overwrite", "--cast"),
      needs("--web-name", "--web")
    ],
    more: [{ title: "Keys while watching", rows: replayKeyHelp }]
  },
  (options) =>
    Effect.gen(function*() {
      const { file } = options
      const as = yield* viewerOf(options.as)
      const web = yield* webAddress(options.web, options.webName)
      const cast = Option.getOrUndefined(options.cast)
      if (cast !== undefined) yield* checkOutputs([{ path: cast, flag: "--cast" }], [{ path: file, what: "the recording" }], options.overwrite)
      const recording = yield* loadRecording(file)
      if (Option.isSome(web)) {
        // Served until interrupted (Ctrl-C): the page plays the recording at its own pace.
        return yield* Effect.scoped(
          startReplayWeb(recording, web.value).pipe(
            Effect.mapError((error) => error.reason === "BadRecording" ? new CliError({ message: `${file} — ${error.message}` }) : error),
            Effect.flatMap((page) => Console.log(webLines(`Watch ${file} in a browser`, page))),
            Effect.zipRight(Effect.never)
          )
        )
      }
      if (options.check) {
        const result = yield* replayRecording(recording).pipe(
          Effect.mapError((mismatch) => new CliError({ message: `${file} — ${mismatch.message}` }))
        )
        const end = result.ended === "over"
          ? "and the summary match"
          : result.ended === "stopped"
          ? "and the summary match (the game was stopped before its gold ran out)"
          : result.ended === "failed"
          ? "and the summary match (a defect in the server stopped the game)"
          : "match (the recording stops before the end)"
        return yield* Console.log(`${file}: OK — ${result.moves} moves, ${result.checkpoints} checkpoints ${end}`)
      }
      if (cast === undefined) yield* needsTerminal("replay", "--cast OUT writes a cast, --check checks it, --web PORT shows it in a browser")
      const { moments, result } = yield* recordedMoments(recording, as).pipe(
        Effect.mapError((mismatch) => new CliError({ message: `${file} — ${mismatch.message}` })),
        Effect.filterOrFail(
          ({ moments }) => moments.length > 0,
          () => new CliError({ message: `${file} — ${whose(as)} never joined this game` })
        )
      )
      if (cast !== undefined) {
        const text = castOf(moments, {
          title: `Nuggets, as ${whose(as)} saw it`,
          started: recording.header.started,
          moves: result.moves,
          speed: options.speed,
          colour: !options.noColor
        })
        if (cast === stdoutPath) return yield* Console.log(text.trimEnd())
        yield* Effect.tryPromise({
          // Exclusive unless --overwrite: a file that appeared since the check is kept.
          try: () => writeFile(cast, text, { flag: options.overwrite ? "w" : "wx" }),
          catch: (error) => new CliError({ message: `${cast} — cannot write the cast: ${errnoWords(errnoOf(error), String(error))}` })
        })
        return yield* Console.log(`${cast}: ${moments.length} frames of ${whose(as)}`)
      }
      const watched = yield* watchRecording(moments, options.speed).pipe(Effect.provide(terminalLayer({ noColor: options.noColor })))
      yield* Console.log(
        watched.exit
          ? farewell(watched.exit, printWidth())
          : watched.done === "end"
          ? `the recording ends at move ${watched.move} of ${result.moves}`
          : `stopped at move ${watched.move} of ${result.moves}`
      )
    })
)
