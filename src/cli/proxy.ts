import { Effect, Option } from "effect"
import { colourWanted } from "../colour.js"
import { type Faults, reorderChance, runProxy } from "../kit/proxy/proxy.js"
import { command, decimal, flag, needs, optional, text, textArg, wholeNumber, wholeNumberArg, withDefault } from "./command.js"
import { CliError, toCliError } from "./error.js"
import { checkOutputs } from "./files.js"
import { seedOrClock } from "./maps.js"
import { maxSeed, noColorOption, overwriteOption } from "./options.js"

const maxDelay = 60_000

/** `--delay 40` or `--delay 20-80`: milliseconds, or a range drawn from per datagram. */
const delayOf = (text: Option.Option<string>): Effect.Effect<Faults["delay"], CliError> =>
  Option.match(text, {
    onNone: () => Effect.succeed(undefined),
    onSome: (value) => {
      const found = /^(\d+)(?:-(\d+))?$/.exec(value)
      const min = Number(found?.[1])
      const max = Number(found?.[2] ?? found?.[1])
      const why = !found
        ? `'${value}' is not MS or MS-MS (milliseconds)`
        : max > maxDelay
        ? `at most ${maxDelay} ms, not ${max}`
        : min > max
        ? `the range ${value} runs backwards`
        : undefined
      return why === undefined ? Effect.succeed({ min, max }) : Effect.fail(new CliError({ message: `--delay — ${why}` }))
    }
  })

export const proxyNode = command(
  "proxy",
  {
    summary: "Relay datagrams between any Nuggets client and any server: print a timeline of the traffic, each " +
      "message decoded and each break of the spec flagged, with seeded faults if asked. Runs until Ctrl-C.",
    args: {
      listenPort: wholeNumberArg("LISTEN_PORT", 0, 65535, "the port clients send to instead of the server's (0 picks a free one, printed first)"),
      host: textArg("HOST", "name or address of the machine where the server runs"),
      port: wholeNumberArg("PORT", 1, 65535, "the server's port")
    },
    options: {
      listenHost: text("listen-host", "ADDR", "address to listen on: 127.0.0.1 for this machine only").pipe(withDefault("0.0.0.0")),
      loss: decimal("loss", "P", 0, 1, "chance (0..1) that a datagram is lost").pipe(withDefault(0)),
      duplicate: decimal("duplicate", "P", 0, 1, "chance (0..1) that a datagram arrives twice").pipe(withDefault(0)),
      delay: text("delay", "MS[-MS]", "each datagram waits MS milliseconds, or a time drawn from the range").pipe(optional()),
      reorder: flag("reorder", `one datagram in ${1 / reorderChance} is overtaken by the next one the same way`),
      seed: wholeNumber("seed", "N", 0, maxSeed, "makes the faults reproducible (each datagram meets one fault at most)").pipe(
        optional("the clock")
      ),
      record: text("record", "FILE", "keep the traffic in FILE as a transcript (newline-delimited JSON, byte for byte)")
        .pipe(optional()),
      overwrite: overwriteOption("--record"),
      noColor: noColorOption
    },
    rules: [needs("--overwrite", "--record")]
  },
  (options) =>
    Effect.gen(function*() {
      const delay = yield* delayOf(options.delay)
      const record = Option.getOrUndefined(options.record)
      if (record !== undefined) yield* checkOutputs([{ path: record, flag: "--record" }], [], options.overwrite)
      const seed = yield* seedOrClock(options.seed)
      const colour = colourWanted(process.stdout, options.noColor)
      yield* Effect.scoped(runProxy(
        {
          listen: { host: options.listenHost, port: options.listenPort },
          server: { host: options.host, port: options.port },
          faults: { loss: options.loss, duplicate: options.duplicate, delay, reorder: options.reorder, seed },
          colour,
          ...(record === undefined ? {} : { record: { path: record, overwrite: options.overwrite } })
        },
        (line) => process.stdout.write(`${line}\n`)
      )).pipe(
        // The proxy's port is an argument, not --port: the failure alone, but a file's in the recordings' words.
        Effect.mapError((error) => (error._tag === "RecordingError" ? toCliError(error) : new CliError({ message: error.message })))
      )
    })
)
