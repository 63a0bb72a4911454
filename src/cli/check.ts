import { Args } from "@effect/cli"
import { Console, Effect, Logger, LogLevel, Option } from "effect"
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { colourWanted } from "../colour.js"
import { checkClient, clientCheckNames } from "../kit/check-client/check-client.js"
import { checkServer, serverCheckNames } from "../kit/check-server/check-server.js"
import { type ConformanceReport, counts, reportJson, reportJunit, reportText } from "../kit/conformance/report.js"
import type { Dialect } from "../protocol/dialect.js"
import { Argument, choice, command, commandArgs, decimal, flag, group, needs, optional, text, wholeNumber, withDefault } from "./command.js"
import { CliError } from "./error.js"
import { checkOutputs } from "./files.js"
import { parseServableMap, readMapText } from "./maps.js"
import { noColorOption, overwriteOption } from "./options.js"

const dialectOf = (choice: "2019" | "2021" | "auto"): Dialect | undefined => (choice === "auto" ? undefined : choice)

/** The options every checker takes. */
export const reportOptions = {
  json: flag("json", "print the report as JSON, for graders"),
  junit: text("junit", "FILE", "also write the report to FILE as JUnit XML, which CI systems read").pipe(optional()),
  overwrite: overwriteOption("--junit"),
  noColor: noColorOption
}

const reportRules = [needs("--overwrite", "--junit")]

interface ReportChoices {
  readonly json: boolean
  readonly junit: Option.Option<string>
  readonly overwrite: boolean
  readonly noColor: boolean
}

/** --junit FILE, refused before anything runs if it cannot be written (or exists, without --overwrite). */
const checkJunit = (options: ReportChoices, inputs: ReadonlyArray<{ readonly path: string; readonly what: string }> = []) =>
  checkOutputs(Option.toArray(options.junit).map((path) => ({ path, flag: "--junit" })), inputs, options.overwrite)

/**
 * The report on stdout, as text or JSON, and as JUnit XML to --junit's file; when any check
 * failed (not warned, not left unrun), exit status 1 and a line on stderr.
 */
export const printReport = (report: ConformanceReport, options: ReportChoices, suite: string) =>
  Effect.gen(function*() {
    const colour = colourWanted(process.stdout, options.noColor)
    yield* Console.log(options.json ? reportJson(report) : reportText(report, { colour }))
    if (Option.isSome(options.junit)) {
      const file = options.junit.value
      yield* Effect.try({
        try: () => writeFileSync(file, reportJunit(report, suite)),
        catch: (error) => new CliError({ message: `${file} — cannot write the JUnit report: ${error instanceof Error ? error.message : String(error)}` })
      })
    }
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

/** HOST PORT, or `-- COMMAND ...`: one list of words, read by whether `--` was typed. */
const serverTarget = new Argument(
  Args.text({ name: "COMMAND" }).pipe(Args.atLeast(1)),
  {
    term: "HOST PORT, or -- COMMAND ...",
    text: "the machine and port of a server that runs; or, after --, the command that starts one (with {map} and {seed} in it " +
      "replaced by --map's file and --seed): the checker then starts it itself, afresh where a check needs a fresh game and after a crash"
  },
  "COMMAND",
  true,
  true
)

/** The server's address, or its command, from the words given. */
const targetOf = (words: ReadonlyArray<string>, dashes: boolean, map: string | undefined, seed: number) =>
  Effect.gen(function*() {
    if (dashes) {
      if (words.some((word) => word.includes("{map}")) && map === undefined) {
        return yield* new CliError({ message: "{map} — COMMAND names the map, but no --map FILE was given to put there" })
      }
      return { _tag: "Command" as const, command: words, map: map === undefined ? undefined : resolve(map), seed }
    }
    const [host, port, ...more] = words
    if (host === undefined || port === undefined) return yield* new CliError({ message: "PORT — missing; give HOST PORT, or -- COMMAND to start the server; try 'nuggets help check server'" })
    if (more.length > 0) return yield* new CliError({ message: `unexpected argument '${more[0]}' — to start the server, put -- before its command` })
    if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) return yield* new CliError({ message: `PORT — must be 1..65535, not ${port}` })
    return { _tag: "Address" as const, host, port: Number(port) }
  })

const checkServerNode = command(
  "server",
  {
    summary: "Play against a Nuggets server over UDP and report how well it follows the spec: each check passes, fails, " +
      "warns (a difference from the spec's examples or its \"should\") or was not run, saying what it sent, what came back " +
      "and the line of the spec. Give HOST PORT of a server freshly started (the checks play its game to the end), or -- " +
      "COMMAND to have the checker start it, as often as it needs. Exit status 1 if any check fails.",
    args: { target: serverTarget },
    options: {
      dialect: choice(
        "dialect",
        "D",
        ["2019", "2021", "auto"] as const,
        "2019 (the spec's: NO, GAMEOVER), 2021 (ERROR, QUIT GAME OVER:, sight through room spots only), or auto: " +
          "guessed from the first refusal or game over"
      ).pipe(withDefault<"2019" | "2021" | "auto">("auto")),
      map: text("map", "FILE", "the map the server was started with (put in COMMAND's {map}): then each DISPLAY is held against the visibility rule too")
        .pipe(optional()),
      seed: wholeNumber("seed", "N", 0, 2 ** 31 - 1, "put in COMMAND's {seed}").pipe(withDefault(1)),
      only: text("only", "NAME", `run one check (and what it builds on): ${serverCheckNames.join(", ")}`)
        .pipe(optional()),
      timeout: decimal("timeout", "S", 0.5, 600, "seconds each check may take (one that plays a whole game or fills it gets what that takes)")
        .pipe(withDefault(10)),
      deadline: decimal("deadline", "S", 1, 7200, "seconds the whole run may take").pipe(withDefault(300)),
      ...reportOptions
    },
    rules: reportRules
  },
  (options, given) =>
    Effect.gen(function*() {
      const only = yield* checkOnly(options.only, serverCheckNames)
      const file = Option.getOrUndefined(options.map)
      yield* checkJunit(options, file === undefined ? [] : [{ path: file, what: "the map" }])
      const map = file === undefined ? undefined : { file, map: yield* Effect.flatMap(readMapText(file), (text) => parseServableMap(text, file)) }
      const target = yield* targetOf(options.target, given.includes("--"), file, options.seed)
      const report = yield* checkServer({
        target,
        dialect: dialectOf(options.dialect),
        map,
        only,
        checkMs: options.timeout * 1000,
        totalMs: options.deadline * 1000,
        answerMs: Math.min(2000, options.timeout * 1000)
      }).pipe(Logger.withMinimumLogLevel(LogLevel.None))
      yield* printReport(report, options, "nuggets.check.server")
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
    },
    rules: reportRules
  },
  (options) =>
    Effect.gen(function*() {
      const only = yield* checkOnly(options.only, clientCheckNames)
      yield* checkOutputs(Option.toArray(options.clientLog).map((path) => ({ path, flag: "--client-log", append: true })), [], false)
      yield* checkJunit(options)
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
      yield* printReport(report, options, "nuggets.check.client")
    })
)

export const checkNode = group("check", "Check a Nuggets server or client, written by anyone, against the spec.", [checkServerNode, checkClientNode])
