import { Duration, Effect, Option } from "effect"
import { type Variant, variants } from "../core/rules.js"
import { parseWebAddress, parseWebName } from "../web/address.js"
import type { Listening, ListenOptions } from "../web/listen.js"
import {
  choice,
  duration,
  flag,
  needs,
  optional,
  optionalArg,
  type Rule,
  text,
  textArg,
  wholeNumber,
  wholeNumberArg,
  withDefault
} from "./command.js"

/** The options more than one command takes, each declared once. */

/** The largest seed: any whole number JavaScript counts exactly. */
export const maxSeed = Number.MAX_SAFE_INTEGER

const builtInMap = "the spec's example map, built in"
const seedText = "a whole number: the same seed and the same moves replay the same game"

export const mapOption = text("map", "FILE", "the map file").pipe(optional(builtInMap))
export const seedOption = wholeNumber("seed", "N", 0, maxSeed, seedText).pipe(optional("the clock"))
/** The spec's own form, `serve MAP SEED`. */
export const mapArg = textArg("MAP", "the map file (or --map FILE)").pipe(optionalArg(builtInMap))
export const seedArg = wholeNumberArg("SEED", 0, maxSeed, `${seedText} (or --seed N)`).pipe(optionalArg("the clock"))

export const portOption = wholeNumber("port", "N", 0, 65535, "UDP port to listen on; 0 picks a free one").pipe(withDefault(0))

export const hostOption = text(
  "host",
  "ADDR",
  "address to listen on: 0.0.0.0 every interface, 127.0.0.1 this machine only, :: IPv6"
).pipe(withDefault("0.0.0.0"))

export const variantOption = choice(
  "variant",
  "RULES",
  variants,
  "classic (the spec's), or steal: moving onto a player also takes 10% of its purse"
).pipe(withDefault<Variant>("classic"))

/** The rules a server plays by (one home: `server/stack.ts`, where every game is composed). */

export const recordOption = text(
  "record",
  "FILE",
  "record the game to FILE as it is played; watch it again with 'nuggets replay FILE'. An existing FILE is " +
    "refused unless --overwrite is given"
).pipe(optional())

/** `--overwrite`, for the option that writes a file. */
export const overwriteOption = (output: string) => flag("overwrite", `let ${output} replace a file that exists`)

export const webOption = text(
  "web",
  "[HOST:]PORT",
  "also serve the game to browsers, to watch and to play (HOST 127.0.0.1 unless given; 0.0.0.0 for a LAN)"
).pipe(optional())

export const webNameOption = text(
  "web-name",
  "NAME",
  "a name browsers may call the page by besides localhost, IP addresses and this machine's own (a public name behind a proxy)"
).pipe(optional())

/** `--web`'s address (and `--web-name`'s name), checked before anything starts. */
export const webAddress = (text: Option.Option<string>, name: Option.Option<string> = Option.none()) =>
  Option.match(text, {
    onNone: () => Effect.succeed(Option.none<ListenOptions>()),
    onSome: (value) =>
      Effect.all({ address: parseWebAddress(value), names: Effect.forEach(Option.toArray(name), parseWebName) }).pipe(
        Effect.map(({ address, names }): Option.Option<ListenOptions> => Option.some({ ...address, names }))
      )
  })

/** Where the page is, as the commands print it: this machine's address, then the local network's. */
export const webLines = (label: string, page: Listening): string =>
  [`${label}: ${page.url}`, ...(page.lanUrls.length > 0 ? [`From another machine on this network: ${page.lanUrls.join(" ")}`] : [])]
    .join("\n")

export const logOption = (where: string) =>
  text("log", "FILE", `add the log to the end of FILE (${where})`).pipe(optional())

export const logFormats = ["text", "json"] as const
export type LogFormat = typeof logFormats[number]
export const logFormatOption = choice("log-format", "F", logFormats, "text (a line per entry) or json (an object per line, for tools)").pipe(
  withDefault<LogFormat>("text")
)

export const logLevels = ["debug", "info", "warning", "error", "none"] as const
export type LogLevelName = typeof logLevels[number]
export const logLevelOption = choice(
  "log-level",
  "L",
  logLevels,
  "debug (every datagram refused, sent or received), info, warning, error or none"
).pipe(withDefault<LogLevelName>("info"))

/** How long a player may be silent before the server counts it as having quit. */
export const defaultIdleTimeout = Duration.minutes(10)

export const idleTimeoutOption = duration(
  "idle-timeout",
  "DURATION",
  "a player silent this long is counted as having quit, so that a client that died frees its letter: " +
    "minutes, or 90s, 2h, ..."
).pipe(withDefault(defaultIdleTimeout, "10 (minutes)"))

/** `--compat cs50-2021`: the later CS50 form of the protocol, said in the words of the command that takes it. */
export const compatOption = (help: string) => choice("compat", "cs50-2021", ["cs50-2021"] as const, help).pipe(optional())

export const noColorOption = flag("no-color", "no colours (as when NO_COLOR is set or the output is not a terminal)")

/**
 * What every command that hosts a game (serve, play) takes: the map and seed, where it
 * listens, the rules, a recording, the page for browsers, the idle timeout.
 */
export const hostingOptions = {
  map: mapOption,
  seed: seedOption,
  port: portOption,
  host: hostOption,
  variant: variantOption,
  record: recordOption,
  overwrite: overwriteOption("--record"),
  web: webOption,
  webName: webNameOption,
  idleTimeout: idleTimeoutOption
}

/** The rules between those options. */
export const hostingRules: ReadonlyArray<Rule> = [needs("--overwrite", "--record"), needs("--web-name", "--web")]
