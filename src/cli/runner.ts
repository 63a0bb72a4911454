import { Args, CliConfig, Command, CommandDescriptor, HelpDoc, Options, type Usage, ValidationError } from "@effect/cli"
import type { Span } from "@effect/cli/HelpDoc/Span"
import { Console, Effect, Option } from "effect"
import { CliError } from "./error.js"

/**
 * The command line around @effect/cli. @effect/cli parses each command's own options and
 * arguments; choosing the command, help, `--version`, unknown names and error lines are
 * ours. @effect/cli 0.77 cannot show a command's full path or its defaults in help, hide
 * `--wizard`, reject an unknown option by name, or print an error without colour on one
 * line, so `Command.run` is not used.
 */

/** One argument or option as help lists it. */
export interface HelpEntry {
  /** As typed: `--port N`, `MAP`. */
  readonly term: string
  readonly text: string
  readonly default?: string
}

export interface Help {
  readonly summary: string
  /** What follows the command's path on the usage line, e.g. `[options] [MAP [SEED]]`. */
  readonly usage?: string
  readonly args?: ReadonlyArray<HelpEntry>
  readonly options?: ReadonlyArray<HelpEntry>
  /** Free text at the end, such as a table of keys. */
  readonly more?: string
}

/** A command of any name and config: a leaf may hold any of them. */
type AnyCommand<R, E> = Command.Command<any, R, E, any>

export interface CommandNode<R, E> {
  readonly name: string
  readonly help: Help
  /** A command that runs, or a group of commands. */
  readonly command?: AnyCommand<R, E>
  readonly children?: ReadonlyArray<CommandNode<R, E>>
}

export const leaf = <R, E>(command: AnyCommand<R, E>, help: Help): CommandNode<R, E> => ({
  name: [...Command.getNames(command)][0]!,
  help,
  command
})

export const group = <R, E>(name: string, help: Help, children: ReadonlyArray<CommandNode<R, E>>): CommandNode<R, E> => ({
  name,
  help,
  children
})

// ---- Strict numbers: only digits (and a decimal point where allowed), within a range, in our own words ----

const checkNumber = (label: string, text: string, min: number, max: number, decimals: boolean) =>
  !(decimals ? /^\d+(\.\d+)?$/ : /^\d+$/).test(text)
    ? { ok: false as const, why: `${label} — '${text}' is not a ${decimals ? "number" : "whole number"}` }
    : Number(text) < min || Number(text) > max
    ? { ok: false as const, why: `${label} — must be ${min}..${max}, not ${text}` }
    : { ok: true as const, value: Number(text) }

const numberOption = (name: string, min: number, max: number, decimals: boolean) =>
  Options.text(name).pipe(Options.mapEffect((text) => {
    const checked = checkNumber(`--${name}`, text, min, max, decimals)
    return checked.ok ? Effect.succeed(checked.value) : Effect.fail(ValidationError.invalidValue(HelpDoc.p(checked.why)))
  }))

export const wholeNumberOption = (name: string, min: number, max: number) => numberOption(name, min, max, false)

/** A number such as `0.5` or `10`: no sign, no exponent, no hex. */
export const decimalOption = (name: string, min: number, max: number) => numberOption(name, min, max, true)

export const wholeNumberArg = (name: string, min: number, max: number) =>
  Args.text({ name }).pipe(Args.mapEffect((text) => {
    const checked = checkNumber(name, text, min, max, false)
    return checked.ok ? Effect.succeed(checked.value) : Effect.fail(HelpDoc.p(checked.why))
  }))

// ---- What a command parses, read from @effect/cli's own usage ----

/** Every option a command parses, and whether it takes a value. */
export const optionsOf = <R, E>(command: AnyCommand<R, E>): ReadonlyMap<string, boolean> => {
  const found = new Map<string, boolean>()
  const walk = (usage: Usage.Usage): void => {
    switch (usage._tag) {
      case "Named":
        for (const name of usage.names) if (name.startsWith("-")) found.set(name, Option.isSome(usage.acceptedValues))
        return
      case "Optional":
      case "Repeated":
        return walk(usage.usage)
      case "Alternation":
      case "Concat":
        walk(usage.left)
        return walk(usage.right)
    }
  }
  walk(Command.getUsage(command))
  return found
}

/** Commands whose help does not list exactly the options they parse: empty when help is true. */
export const helpMismatches = <R, E>(node: CommandNode<R, E>, path = ""): Array<string> => {
  const here = `${path} ${node.name}`.trim()
  if (node.children) return node.children.flatMap((child) => helpMismatches(child, here))
  const parsed = [...optionsOf(node.command!).keys()].sort()
  const listed = (node.help.options ?? []).flatMap((entry) => entry.term.split(" ")[0]!.split(",")).sort()
  return parsed.join() === listed.join() ? [] : [`${here}: parses ${parsed.join(" ")} but its help lists ${listed.join(" ")}`]
}

// ---- Help ----

const wantsColour = (stream: NodeJS.WriteStream) => stream.isTTY === true && (process.env.NO_COLOR ?? "") === ""

export const renderHelp = <R, E>(path: ReadonlyArray<string>, node: CommandNode<R, E>, colour: boolean): string => {
  const heading = (text: string) => (colour ? `\x1b[1m${text}\x1b[0m` : text)
  const { help } = node
  const table = (rows: ReadonlyArray<readonly [string, string]>) => {
    const width = Math.min(22, Math.max(...rows.map(([term]) => term.length)))
    return rows.map(([term, text]) =>
      term.length > width ? `  ${term}\n  ${" ".repeat(width)}  ${text}` : `  ${term.padEnd(width)}  ${text}`
    )
  }
  const entries = (list: ReadonlyArray<HelpEntry>) =>
    table(list.map((entry) => [entry.term, entry.default === undefined ? entry.text : `${entry.text} (default: ${entry.default})`] as const))
  const usage = [...path, help.usage ?? (node.children ? "<command>" : "")].join(" ").trim()
  const lines = [`${heading("Usage:")} ${usage}`, "", help.summary]
  if (node.children) {
    lines.push("", heading("Commands:"), ...table(node.children.map((child) => [child.name, child.help.summary] as const)))
  }
  if (help.args?.length) lines.push("", heading("Arguments:"), ...entries(help.args))
  const builtIn: Array<HelpEntry> = [{ term: "-h, --help", text: "show this help" }]
  if (path.length === 1) builtIn.push({ term: "-V, --version", text: "print the version" })
  lines.push("", heading("Options:"), ...entries([...(help.options ?? []), ...builtIn]))
  if (help.more) lines.push("", help.more)
  return lines.join("\n")
}

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

// ---- Running ----

const config = CliConfig.make({ isCaseSensitive: true })
const usageError = (message: string) => Effect.fail(new CliError({ message }))

/**
 * Runs the command `argv` names (argv as `process.argv`: node and script first). Help and
 * the version go to stdout; a bad command line fails with a one-line `CliError`.
 */
export const runCommandLine = <R, E>(root: CommandNode<R, E>, version: string, argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const words = argv.slice(2)
    const showHelp = (path: ReadonlyArray<string>, node: CommandNode<R, E>) =>
      Console.log(renderHelp(path, node, wantsColour(process.stdout)))
    if (words.length === 1 && (words[0] === "--version" || words[0] === "-V")) {
      return yield* Console.log(`${root.name} ${version}`)
    }
    // `nuggets help [command...]`: every word names a command.
    const helpAsked = words[0] === "help"
    const rest = helpAsked ? words.slice(1) : words.slice()
    const path = [root.name]
    let node = root
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
    if (node.children) {
      if (rest.length === 0) return yield* showHelp(path, node)
      return yield* usageError(`unknown option '${rest[0]}' — ${tryHelp}`)
    }
    const command = node.command!
    // Every word that looks like an option must be one of the command's own.
    const known = optionsOf(command)
    for (let i = 0; i < optionWords.length; i++) {
      const word = optionWords[i]!
      if (!word.startsWith("-") || word === "-") continue
      const name = word.split("=")[0]!
      const takesValue = known.get(name)
      if (takesValue === undefined) return yield* usageError(`unknown option '${name}' — ${tryHelp}`)
      if (takesValue && !word.includes("=")) {
        if (i + 1 >= optionWords.length) return yield* usageError(`${name} — needs a value`)
        i++
      }
    }
    const directive = yield* CommandDescriptor.parse(command.descriptor, [node.name, ...rest], config).pipe(
      // Our own checks already say `<what> — <why>`; @effect/cli's words get the command as <what>.
      Effect.mapError((error) => {
        const line = docLine(error.error)
        return new CliError({ message: line.includes(" — ") ? line : `${path.slice(1).join(" ")} — ${line}` })
      })
    )
    if (directive._tag === "BuiltIn") return yield* showHelp(path, node)
    if (directive.leftover.length > 0) {
      return yield* usageError(`unexpected argument '${directive.leftover[0]}' — ${tryHelp}`)
    }
    return yield* command.transform(command.handler(directive.value), directive.value)
  })
