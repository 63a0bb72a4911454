import { Args, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Duration, Effect, Option } from "effect"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import { CliError } from "./error.js"

/**
 * Options and arguments are each declared once, here: the same declaration gives the
 * parser @effect/cli runs and the line help prints, so the two cannot disagree (a default
 * is written once). Commands are built from them with `command` and `group`.
 *
 *     const port = wholeNumber("port", "N", 0, 65535, "UDP port to listen on").pipe(withDefault(0))
 */

/** One argument or option as help lists it. */
export interface HelpEntry {
  /** As typed: `--port N`, `MAP`. */
  readonly term: string
  readonly text: string
  readonly default?: string
}

const pipeMethod = function(this: unknown) {
  return pipeArguments(this, arguments)
} as Pipeable["pipe"]

class Declaration<P> implements Pipeable {
  constructor(readonly parser: P, readonly help: HelpEntry) {}
  readonly pipe = pipeMethod
}

/** An option: its parser and its help, from one declaration. */
export class Declared<A> extends Declaration<Options.Options<A>> {
  constructor(
    parser: Options.Options<A>,
    help: HelpEntry,
    /** `--port`, as typed. */
    readonly flag: string,
    readonly takesValue: boolean
  ) {
    super(parser, help)
  }
}

/** A positional argument: its parser and its help, from one declaration. */
export class Argument<A> extends Declaration<Args.Args<A>> {
  constructor(
    parser: Args.Args<A>,
    help: HelpEntry,
    readonly name: string,
    readonly required: boolean,
    /** Takes every word left (the last argument only): a command and its own arguments, after `--`. */
    readonly variadic = false
  ) {
    super(parser, help)
  }
}

// ---- Values, read strictly and refused in our own words ----

/** Why a value is refused: `<what> — <why>`, the line the user reads. */
const refuse = (why: string): Effect.Effect<never, ValidationError.ValidationError> =>
  Effect.fail(ValidationError.invalidValue(HelpDoc.p(why)))

/**
 * Only digits (and a decimal point where allowed): no sign, exponent or hex. A negative
 * number is out of range rather than "not a number". Why `text` is refused, or undefined.
 */
export const numberProblem = (label: string, text: string, min: number, max: number, decimals = false): string | undefined => {
  const kind = decimals ? "number" : "whole number"
  if (!(decimals ? /^-?\d+(\.\d+)?$/ : /^-?\d+$/).test(text)) return `${label} — '${text}' is not a ${kind}`
  const value = Number(text)
  if (value < min || value > max) return `${label} — must be ${min}..${max}, not ${text}`
  return undefined
}

const readNumber = (
  label: string,
  text: string,
  min: number,
  max: number,
  decimals: boolean
): Effect.Effect<number, ValidationError.ValidationError> => {
  const problem = numberProblem(label, text, min, max, decimals)
  return problem === undefined ? Effect.succeed(Number(text)) : refuse(problem)
}

const valued = <A>(
  name: string,
  value: string,
  text: string,
  read: (label: string, raw: string) => Effect.Effect<A, ValidationError.ValidationError>
) => new Declared(Options.text(name).pipe(Options.mapEffect((raw) => read(`--${name}`, raw))), { term: `--${name} ${value}`, text }, `--${name}`, true)

/** `--name`: true when given. */
export const flag = (name: string, text: string): Declared<boolean> =>
  new Declared(Options.boolean(name), { term: `--${name}`, text }, `--${name}`, false)

/** `--name VALUE`, any text. */
export const text = (name: string, value: string, help: string): Declared<string> =>
  valued(name, value, help, (_, raw) => Effect.succeed(raw))

/** `--name VALUE`, one of `choices`. */
export const choice = <const C extends ReadonlyArray<string>>(name: string, value: string, choices: C, help: string): Declared<C[number]> =>
  valued(name, value, help, (label, raw) =>
    choices.includes(raw) ? Effect.succeed(raw as C[number]) : refuse(`${label} — must be ${orList(choices)}, not '${raw}'`))

export const wholeNumber = (name: string, value: string, min: number, max: number, help: string): Declared<number> =>
  valued(name, value, help, (label, raw) => readNumber(label, raw, min, max, false))

/** A number such as `0.5` or `10`. */
export const decimal = (name: string, value: string, min: number, max: number, help: string): Declared<number> =>
  valued(name, value, help, (label, raw) => readNumber(label, raw, min, max, true))

/** A duration: `90s`, `2m`, `1h`, `500ms`; a bare number is minutes. */
export const duration = (name: string, value: string, help: string): Declared<Duration.Duration> =>
  valued(name, value, help, (label, raw) => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|min|h)?$/.exec(raw)
    const millis = match ? Number(match[1]) * ({ ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 }[match[2] ?? "m"] ?? 0) : 0
    if (!match) return refuse(`${label} — '${raw}' is not a duration: minutes, or a number with ms, s, m or h (90s, 10m, 1h)`)
    if (millis < 1 || millis > 7 * 24 * 3_600_000) return refuse(`${label} — must be more than 0 and at most a week, not ${raw}`)
    return Effect.succeed(Duration.millis(millis))
  })

const orList = (words: ReadonlyArray<string>) =>
  words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`

/** Without the option, `fallback`; help shows it (or `shown`). */
export const withDefault = <A>(fallback: A, shown: string = String(fallback)) => (self: Declared<A>): Declared<A> =>
  new Declared(self.parser.pipe(Options.withDefault(fallback)), { ...self.help, default: shown }, self.flag, self.takesValue)

/** Without the option, none; help says what happens then, if `absent` is given. */
export const optional = (absent?: string) => <A>(self: Declared<A>): Declared<Option.Option<A>> =>
  new Declared(
    Options.optional(self.parser),
    absent === undefined ? self.help : { ...self.help, default: absent },
    self.flag,
    self.takesValue
  )

// ---- Positional arguments ----

export const textArg = (name: string, help: string): Argument<string> =>
  new Argument(Args.text({ name }), { term: name, text: help }, name, true)

export const wholeNumberArg = (name: string, min: number, max: number, help: string): Argument<number> =>
  new Argument(
    Args.text({ name }).pipe(Args.mapEffect((raw) =>
      Effect.mapError(readNumber(name, raw, min, max, false), (error: ValidationError.ValidationError) => error.error)
    )),
    { term: name, text: help },
    name,
    true
  )

/** A command to run and its arguments: every word left, at least one; typed after `--`. */
export const commandArgs = (name: string, help: string): Argument<ReadonlyArray<string>> =>
  new Argument(Args.text({ name }).pipe(Args.atLeast(1)), { term: `-- ${name} ...`, text: help }, name, true, true)

export const optionalArg = (absent?: string) => <A>(self: Argument<A>): Argument<Option.Option<A>> =>
  new Argument(Args.optional(self.parser), absent === undefined ? self.help : { ...self.help, default: absent }, self.name, false)

// ---- Rules between options ----

/** A combination of options that cannot act together, checked before the command runs. */
export type Rule =
  /** `flag` has no effect without one of `partners`. */
  | { readonly _tag: "Needs"; readonly flag: string; readonly partners: ReadonlyArray<string> }
  /** `flag` and any of `others` cannot act together. */
  | { readonly _tag: "Excludes"; readonly flag: string; readonly others: ReadonlyArray<string> }

export const needs = (flag: string, ...partners: ReadonlyArray<string>): Rule => ({ _tag: "Needs", flag, partners })
export const excludes = (flag: string, ...others: ReadonlyArray<string>): Rule => ({ _tag: "Excludes", flag, others })

/** The first rule the options given break, as the line the user reads; undefined when none. */
export const brokenRule = (rules: ReadonlyArray<Rule>, given: ReadonlyArray<string>): string | undefined => {
  for (const rule of rules) {
    if (!given.includes(rule.flag)) continue
    if (rule._tag === "Needs" && !rule.partners.some((partner) => given.includes(partner))) {
      return `${rule.flag} — only with ${orList(rule.partners)}`
    }
    if (rule._tag === "Excludes") {
      const other = given.find((each) => rule.others.includes(each))
      if (other !== undefined) {
        // Named in the order typed.
        const [first, second] = given.indexOf(other) < given.indexOf(rule.flag) ? [other, rule.flag] : [rule.flag, other]
        return `${second} — cannot be used with ${first}`
      }
    }
  }
  return undefined
}

// ---- Commands ----

/** A section at the end of a command's help, such as its keys. */
export interface HelpSection {
  readonly title: string
  readonly rows: ReadonlyArray<readonly [string, string]>
  /** A paragraph after the rows. */
  readonly text?: string
}

export interface Help {
  readonly summary: string
  /** What follows the command's path on the usage line, e.g. `[options] [MAP [SEED]]`. */
  readonly usage?: string
  readonly args?: ReadonlyArray<HelpEntry>
  readonly options?: ReadonlyArray<HelpEntry>
  /** Sections at the end, such as a table of keys. */
  readonly more?: ReadonlyArray<HelpSection>
}

/** What a command's handler is given: each argument's and option's value, under its key. */
export type Values<As, Os> =
  & { readonly [K in keyof As]: As[K] extends Argument<infer A> ? A : never }
  & { readonly [K in keyof Os]: Os[K] extends Declared<infer A> ? A : never }

/** A command that runs: what it parses, and what to do with it. */
export interface Runnable<R, E> {
  readonly options: ReadonlyArray<Declared<unknown>>
  readonly args: ReadonlyArray<Argument<unknown>>
  readonly rules: ReadonlyArray<Rule>
  /** Runs with the parsed options and arguments, by key; `given` lists the options typed, in order. */
  readonly run: (
    options: Readonly<Record<string, unknown>>,
    args: Readonly<Record<string, unknown>>,
    given: ReadonlyArray<string>
  ) => Effect.Effect<void, E, R>
  readonly optionKeys: ReadonlyArray<string>
  readonly argKeys: ReadonlyArray<string>
}

export interface CommandNode<R, E> {
  readonly name: string
  readonly help: Help
  /** A command that runs, or a group of commands. */
  readonly command?: Runnable<R, E>
  readonly children?: ReadonlyArray<CommandNode<R, E>>
}

/** `[options] HOST PORT [NAME]`; optional arguments nest: `[MAP [SEED]]`. */
const usageOf = (args: ReadonlyArray<Argument<unknown>>, hasOptions: boolean): string => {
  let tail = ""
  for (const arg of args.slice().reverse()) {
    const name = arg.variadic ? `-- ${arg.name} ...` : arg.name
    tail = arg.required ? `${name}${tail ? ` ${tail}` : ""}` : `[${name}${tail ? ` ${tail}` : ""}]`
  }
  return [hasOptions ? "[options]" : "", tail].filter(Boolean).join(" ")
}

export const command = <
  const As extends Readonly<Record<string, Argument<any>>>,
  const Os extends Readonly<Record<string, Declared<any>>>,
  R,
  E
>(
  name: string,
  spec: {
    readonly summary: string
    readonly args?: As
    readonly options?: Os
    readonly rules?: ReadonlyArray<Rule>
    readonly more?: ReadonlyArray<HelpSection>
  },
  handler: (values: Values<As, Os>, given: ReadonlyArray<string>) => Effect.Effect<void, E, R>
): CommandNode<R, E> => {
  const args = Object.values(spec.args ?? {}) as ReadonlyArray<Argument<unknown>>
  const options = Object.values(spec.options ?? {}) as ReadonlyArray<Declared<unknown>>
  return {
    name,
    help: {
      summary: spec.summary,
      usage: usageOf(args, options.length > 0),
      args: args.map((each) => each.help),
      options: options.map((each) => each.help),
      ...(spec.more === undefined ? {} : { more: spec.more })
    },
    command: {
      options,
      args,
      rules: spec.rules ?? [],
      optionKeys: Object.keys(spec.options ?? {}),
      argKeys: Object.keys(spec.args ?? {}),
      run: (optionValues, argValues, given) => handler({ ...argValues, ...optionValues } as Values<As, Os>, given)
    }
  }
}

export const group = <R, E>(name: string, summary: string, children: ReadonlyArray<CommandNode<R, E>>): CommandNode<R, E> => ({
  name,
  help: { summary },
  children
})

/** The value of whichever was given of a positional argument and the option for the same thing; both is a mistake. */
export const eitherOf = <A>(
  positional: Option.Option<A>,
  option: Option.Option<A>,
  names: readonly [positional: string, option: string]
): Effect.Effect<Option.Option<A>, CliError> =>
  Option.isSome(positional) && Option.isSome(option)
    ? Effect.fail(new CliError({ message: `${names[1]} — cannot be used with ${names[0]}: give one` }))
    : Effect.succeed(Option.orElse(positional, () => option))
