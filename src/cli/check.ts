import { Console, Effect, Logger, LogLevel, Option } from "effect"
import { resolve } from "node:path"
import { colourWanted } from "../colour.js"
import { checkClient, clientCheckNames } from "../kit/check-client/check-client.js"
import { checkServer, serverCheckNames } from "../kit/check-server/check-server.js"
import { type ConformanceReport, counts, reportJson, reportText } from "../kit/conformance/report.js"
import type { Dialect } from "../protocol/dialect.js"
import { choice, command, commandArgs, decimal, flag, group, optional, text, textArg, wholeNumberArg, withDefault } from "./command.js"
import { CliError } from "./error.js"
import { checkOutputs } from "./files.js"
import { parseServableMap, readMapText } from "./maps.js"
import { noColorOption } from "./options.js"

const dialectOf = (choice: "2019" | "2021" | "auto"): Dialect | undefined => (choice === "auto" ? undefined : choice)

/** The options every checker takes. */
export const reportOptions = {
  json: flag("json", "print the report as JSON, for graders"),
  noColor: noColorOption
}

/** The report on stdout, as text or JSON; when any check failed, exit status 1 and a line on stderr. */
export const printReport = (report: ConformanceReport, options: { readonly json: boolean; readonly noColor: boolean }) =>
  Effect.gen(function*() {
    const colour = colourWanted(process.stdout, options.noColor)
    yield* Console.log(options.json ? reportJson(report) : reportText(report, { colour }))
    const { failed } = counts(report)
    if (failed > 0) return yield* new CliError({ message: `${report.target.replace(/^nuggets /, "")} — ${failed} of ${report.checks.length} checks failed` })
  })

/** `--only NAME`, checked against the names the checker knows. */
export const checkOnly = <Name extends string>(only: Option.Option<string>, names: ReadonlyArray<Name>): Effect.Effect<Name | undefined, CliError> =>
  Option.match(only, {
    onNone: () => Effect.succeed(undefined),
    onSome: (given) => {
      const name = names.find((each) => each === given)
      return name !== undefined
        ? Effect.succeed(name)
        : Effect.fail(new CliError({ message: `--only — no check '${given}'; the checks: ${names.join(", ")}` }))
    }
  })

const checkServerNode = command(
  "server",
  {
    summary: "Play against a live Nuggets server over UDP and report how well it follows the spec: each check passes " +
      "or says what it sent, what came back and the line of the spec it breaks. Start the server fresh: the checks play " +
      "a whole game on it, to the end. Exit status 1 if any check fails.",
    args: {
      host: textArg("HOST", "name or address of the machine where the server runs"),
      port: wholeNumberArg("PORT", 1, 65535, "the port the server announced")
    },
    options: {
      dialect: choice(
        "dialect",
        "D",
        ["2019", "2021", "auto"] as const,
        "2019 (the spec's: NO, GAMEOVER), 2021 (ERROR, QUIT GAME OVER:, sight through room spots only), or auto: " +
          "guessed from the first refusal or game over"
      ).pipe(withDefault<"2019" | "2021" | "auto">("auto")),
      map: text("map", "FILE", "the map the server was started with: then each DISPLAY is held against the visibility rule too")
        .pipe(optional()),
      only: text("only", "NAME", `run one check (and what it builds on): ${serverCheckNames.join(", ")}`)
        .pipe(optional()),
      timeout: decimal("timeout", "S", 0.5, 600, "seconds each check may take (a whole game and the player limit: at least 120)")
        .pipe(withDefault(10)),
      deadline: decimal("deadline", "S", 1, 7200, "seconds the whole run may take").pipe(withDefault(300)),
      ...reportOptions
    }
  },
  (options) =>
    Effect.gen(function*() {
      const only = yield* checkOnly(options.only, serverCheckNames)
      const file = Option.getOrUndefined(options.map)
      const map = file === undefined ? undefined : { file, map: yield* Effect.flatMap(readMapText(file), (text) => parseServableMap(text, file)) }
      const report = yield* checkServer({
        host: options.host,
        port: options.port,
        dialect: dialectOf(options.dialect),
        map,
        only,
        checkMs: options.timeout * 1000,
        totalMs: options.deadline * 1000,
        answerMs: Math.min(2000, options.timeout * 1000)
      }).pipe(Logger.withMinimumLogLevel(LogLevel.None))
      yield* printReport(report, options)
    })
)

const checkClientNode = command(
  "client",
  {
    summary: "Run a Nuggets client in a terminal of the checker's own (tmux), against a server the checker plays, type " +
      "keys, and report what the client sends and shows: each check passes or says what was sent, what came back and " +
      "the line of the spec. The client is run as COMMAND 127.0.0.1 PORT [NAME], or with {host} {port} {name} in " +
      "COMMAND replaced. Needs tmux. Exit status 1 if any check fails.",
    args: { command: commandArgs("COMMAND", "the client and its own arguments, after --") },
    options: {
      dialect: choice("dialect", "D", ["2019", "2021"] as const, "what the checker's server speaks: 2019 (NO, GAMEOVER) or 2021 (ERROR, QUIT GAME OVER:)")
        .pipe(withDefault<"2019" | "2021">("2019")),
      only: text("only", "NAME", `run one check: ${clientCheckNames.join(", ")}`).pipe(optional()),
      timeout: decimal("timeout", "S", 0.5, 600, "seconds to wait for each thing the client should send or show").pipe(withDefault(3)),
      clientLog: text("client-log", "FILE", "add the client's stderr (its log) to the end of FILE").pipe(optional("thrown away")),
      deadline: decimal("deadline", "S", 1, 7200, "seconds the whole run may take").pipe(withDefault(300)),
      ...reportOptions
    }
  },
  (options) =>
    Effect.gen(function*() {
      const only = yield* checkOnly(options.only, clientCheckNames)
      yield* checkOutputs(Option.toArray(options.clientLog).map((path) => ({ path, flag: "--client-log", append: true })), [], false)
      const report = yield* checkClient({
        command: options.command,
        ...Option.match(options.clientLog, { onNone: () => ({}), onSome: (clientLog) => ({ clientLog: resolve(clientLog) }) }),
        dialect: options.dialect,
        answerMs: options.timeout * 1000,
        only,
        checkMs: Math.max(60_000, options.timeout * 20_000),
        totalMs: options.deadline * 1000
      }).pipe(
        Logger.withMinimumLogLevel(LogLevel.None),
        Effect.mapError((error) => new CliError({ message: error.message }))
      )
      yield* printReport(report, options)
    })
)

export const checkNode = group("check", "Check a Nuggets server or client, written by anyone, against the spec.", [checkServerNode, checkClientNode])
