import { Args, CliConfig, type HelpDoc, Options, type ValidationError } from "@effect/cli"
import type { Span } from "@effect/cli/HelpDoc/Span"
import { Console, Effect, Option } from "effect"
import { brokenRule, type CommandNode, type Runnable } from "./command.js"
import { CliError, type ServiceFailure, toCliError } from "./error.js"
import { type HelpLayout, renderHelp } from "./help.js"

/**
 * The command line around @effect/cli. Choosing the command, help, `--version`, unknown
 * and repeated options and the error lines are ours; each command's options and arguments
 * are parsed by @effect/cli's `Options` and `Args`. `Command.run` is not used: it adds
 * built-in options (`--log-level`, `--wizard`, `--completions`) that take the place of
 * ours, cannot show a command's full path or its defaults in help, and prints errors in
 * colour over several lines.
 */

/** `help` itself, for `nuggets help help`. */
const helpOfHelp = {
  name: "help",
  help: { summary: "Show the help of nuggets or of one of its commands.", usage: "[COMMAND...]" }
} as const

/** A HelpDoc (what @effect/cli says is wrong) as plain text on one line. */
const docLine = (doc: HelpDoc.HelpDoc): string => {
  const span = (s: Span): string =>
    s._tag === "Sequence" ? span(s.left) + span(s.right) : s._tag === "Text" || s._tag === "URI" ? s.value : span(s.value)
  const walk = (d: HelpDoc.HelpDoc): Array<string> => {
    switch (d._tag) {
      case "Empty":
        return []
      case "Header":
      case "Paragraph":
        return [span(d.value)]
      case "Sequence":
        return [...walk(d.left), ...walk(d.right)]
      case "Enumeration":
        return d.elements.flatMap(walk)
      case "DescriptionList":
        return d.definitions.flatMap(([term, body]) => [span(term), ...walk(body)])
    }
  }
  return walk(doc).join(" ").replace(/\s+/g, " ").trim()
}

const config = CliConfig.make({ isCaseSensitive: true })
const usageError = (message: string) => Effect.fail(new CliError({ message }))

/** A word that is an option: `-x`, `--name`, `--name=value`; not `-` (stdin, stdout) nor a negative number. */
const isOptionWord = (word: string) => word.startsWith("-") && word !== "-" && !/^-\d/.test(word)

interface Parsed {
  readonly options: Record<string, unknown>
  readonly args: Record<string, unknown>
  /** Options typed, in order. */
  readonly given: ReadonlyArray<string>
}

/** Reads `words` for `command`; a bad word fails with the line the user reads. */
const parseWords = <R, E>(command: Runnable<R, E>, words: ReadonlyArray<string>, tryHelp: string) =>
  Effect.gen(function*() {
    const dashes = words.indexOf("--")
    const before = dashes === -1 ? words : words.slice(0, dashes)
    const positional: Array<string> = []
    // The options, each as two words (name, value) whatever way it was typed: @effect/cli then never
    // takes a value such as `-` or `-1` for an option of its own.
    const optionWords: Array<string> = []
    const given: Array<string> = []
    for (let i = 0; i < before.length; i++) {
      const word = before[i]!
      if (!isOptionWord(word)) {
        positional.push(word)
        continue
      }
      const equals = word.indexOf("=")
      const name = equals === -1 ? word : word.slice(0, equals)
      const declared = command.options.find((each) => each.flag === name)
      if (declared === undefined) return yield* usageError(`unknown option '${name}' — ${tryHelp}`)
      if (given.includes(name)) return yield* usageError(`${name} — given twice`)
      given.push(name)
      if (!declared.takesValue) {
        if (equals !== -1) return yield* usageError(`${name} — takes no value`)
        optionWords.push(name)
      } else if (equals !== -1) {
        optionWords.push(name, word.slice(equals + 1))
      } else if (i + 1 < before.length) {
        optionWords.push(name, before[++i]!)
      } else {
        return yield* usageError(`${name} — needs a value`)
      }
    }
    // `--` is noted among what was typed: a command may read what follows it as a command to run.
    if (dashes !== -1) {
      positional.push(...words.slice(dashes + 1))
      given.push("--")
    }
    const required = command.args.filter((arg) => arg.required).length
    if (positional.length < required) return yield* usageError(`${command.args[positional.length]!.name} — missing; ${tryHelp}`)
    if (positional.length > command.args.length && command.args.at(-1)?.variadic !== true) {
      return yield* usageError(`unexpected argument '${positional[command.args.length]}' — ${tryHelp}`)
    }
    const ourWords = (error: ValidationError.ValidationError) => new CliError({ message: docLine(error.error) })
    const [optionError, , optionValues] = yield* Options.processCommandLine(
      Options.all(command.options.map((each) => each.parser)),
      optionWords,
      config
    ).pipe(Effect.mapError(ourWords))
    if (Option.isSome(optionError)) return yield* ourWords(optionError.value)
    const [, argValues] = yield* Args.validate(Args.all(command.args.map((each) => each.parser)), positional, config).pipe(
      Effect.mapError(ourWords)
    )
    const byKey = (keys: ReadonlyArray<string>, values: ReadonlyArray<unknown>) =>
      Object.fromEntries(keys.map((key, index) => [key, values[index]]))
    return {
      options: byKey(command.optionKeys, optionValues),
      args: byKey(command.argKeys, argValues),
      given
    } satisfies Parsed
  })

/**
 * Runs the command `argv` names (argv as `process.argv`: node and script first). Help and
 * the version go to stdout; a bad command line, or a command's failure, fails with a
 * one-line `CliError`.
 */
export const runCommandLine = <R, E extends ServiceFailure>(
  root: CommandNode<R, E>,
  version: string,
  argv: ReadonlyArray<string>,
  layout: HelpLayout
) =>
  Effect.gen(function*() {
    const words = argv.slice(2)
    const showHelp = (path: ReadonlyArray<string>, node: Pick<CommandNode<R, E>, "help" | "children">) =>
      Console.log(renderHelp(path, node, layout))
    if (words[0] === "--version" || words[0] === "-V") {
      if (words.length > 1) return yield* usageError(`unexpected argument '${words[1]}' — ${words[0]} takes none`)
      return yield* Console.log(`${root.name} ${version}`)
    }
    // `nuggets help [command...]`: every word names a command.
    const helpAsked = words[0] === "help"
    const rest = helpAsked ? words.slice(1) : words.slice()
    const path = [root.name]
    let node = root
    if (helpAsked && rest[0] === "help") {
      if (rest.length > 1) return yield* usageError(`unexpected argument '${rest[1]}' — try '${root.name} help'`)
      return yield* showHelp([root.name, "help"], helpOfHelp)
    }
    while (node.children && rest.length > 0 && (helpAsked || !rest[0]!.startsWith("-"))) {
      const word = rest[0]!
      const child = node.children.find((each) => each.name === word)
      if (!child) {
        const helpFor = [root.name, "help", ...path.slice(1)].join(" ")
        return yield* usageError(`unknown command '${[...path.slice(1), word].join(" ")}' — try '${helpFor}'`)
      }
      node = child
      path.push(child.name)
      rest.shift()
    }
    const tryHelp = `try '${[root.name, "help", ...path.slice(1)].join(" ")}'`
    if (helpAsked) {
      if (rest.length > 0) return yield* usageError(`help takes command names only, not '${rest[0]}'`)
      return yield* showHelp(path, node)
    }
    const dashes = rest.indexOf("--")
    const optionWords = dashes === -1 ? rest : rest.slice(0, dashes)
    if (optionWords.includes("--help") || optionWords.includes("-h")) return yield* showHelp(path, node)
    if (node.children || !node.command) {
      if (rest.length === 0) return yield* showHelp(path, node)
      return yield* usageError(`unknown option '${rest[0]}' — ${tryHelp}`)
    }
    const command = node.command
    const parsed = yield* parseWords(command, rest, tryHelp)
    const broken = brokenRule(command.rules, parsed.given)
    if (broken !== undefined) return yield* usageError(broken)
    return yield* command.run(parsed.options, parsed.args, parsed.given).pipe(Effect.mapError(toCliError))
  })
