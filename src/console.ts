import { Console, Effect } from "effect"

const ansi = /\x1b\[[0-9;]*m/g

/** Where each subcommand sits under `nuggets`: @effect/cli's help shows only the last word. */
const commandPaths: Readonly<Record<string, string>> = {
  serve: "nuggets serve",
  join: "nuggets join",
  play: "nuggets play",
  bot: "nuggets bot",
  map: "nuggets map",
  check: "nuggets map check"
}

const fullUsage = (text: string) =>
  text.replace(/^(\$ )(?:\x1b\[[0-9;]*m)*([a-z]+)\b/gm, (line, dollar: string, name: string) =>
    name in commandPaths ? `${dollar}${commandPaths[name]}` : line
  )

const wantsPlain = (stream: NodeJS.WriteStream) => !stream.isTTY || (process.env.NO_COLOR ?? "") !== ""

/**
 * The console the CLI prints through: help and errors in plain text when the output is
 * not a terminal or NO_COLOR is set, usage lines that name the whole command, and
 * command-line errors on one line.
 */
export const withCliConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Console.consoleWith((base) => {
    const shape = (plain: boolean) => (args: ReadonlyArray<unknown>) =>
      args.map((arg) => (typeof arg === "string" ? fullUsage(plain ? arg.replace(ansi, "") : arg) : arg))
    const out = shape(wantsPlain(process.stdout))
    // @effect/cli reports a bad command line here: made one line like every other error.
    const err = (args: ReadonlyArray<unknown>) =>
      shape(wantsPlain(process.stderr))(args).map((arg) =>
        typeof arg === "string" ? `nuggets: ${arg.trim().replace(/\s*\n\s*/g, " ")}` : arg
      )
    const unsafe = base.unsafe
    const console: Console.Console = {
      ...base,
      log: (...args) => base.log(...out(args)),
      error: (...args) => base.error(...err(args)),
      unsafe: { ...unsafe, log: (...args) => unsafe.log(...out(args)), error: (...args) => unsafe.error(...err(args)) }
    }
    return Effect.withConsole(effect, console)
  })
