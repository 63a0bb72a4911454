import { Cause, HashMap, Logger, type LogLevel, Option } from "effect"
import { writeSync } from "node:fs"

const text = (message: unknown): string =>
  Array.isArray(message) ? message.map(text).join(" ") : typeof message === "string" ? message : String(message)

/** The annotation naming the game a line is about (`Effect.annotateLogs(gameAnnotation, id)`). */
export const gameAnnotation = "game"

/**
 * Fields every JSON line of this process carries besides its own, set once they are known
 * (the host's id in a fleet, once it has joined).
 */
export const processLogFields: Record<string, string> = {}

interface Entry {
  readonly message: unknown
  readonly cause: Cause.Cause<unknown>
  readonly annotations: HashMap.HashMap<string, unknown>
}

/** An entry's words, as a line of text says them: the game it is about first, then the message and its cause's first line. */
export const entryText = ({ annotations, cause, message }: Entry): string => {
  const game = Option.getOrUndefined(HashMap.get(annotations, gameAnnotation))
  const failure = Cause.isEmpty(cause) ? "" : ` ${Cause.pretty(cause).split("\n")[0]}`
  return `${game === undefined ? "" : `game ${String(game)}: `}${text(message)}${failure}`
}

const write = (fd: number, text: string) => {
  try {
    writeSync(fd, text)
  } catch {
    // A closed or full log must never take the game down.
  }
}

/**
 * One line per entry (time, level, message) written straight to a file descriptor:
 * stderr by default, so stdout carries only what the program is meant to print.
 */
export const lineLogger = (fd = 2) =>
  Logger.make((entry) => {
    // A message of several lines becomes several entries, each with the time and level.
    const prefix = `${entry.date.toISOString()} ${entry.logLevel.label} `
    write(fd, entryText({ ...entry, message: entry.message }).split("\n").map((line) => prefix + line + "\n").join(""))
  })

const levelName = (level: LogLevel.LogLevel) => level.label.toLowerCase()

/**
 * One JSON object per line (`--log-format json`), for tools that read logs as data: the
 * time, the level, the message, and the game's id and the host's where there is one.
 */
export const jsonLogger = (fd = 2) =>
  Logger.make(({ annotations, cause, date, logLevel, message }) => {
    const game = Option.getOrUndefined(HashMap.get(annotations, gameAnnotation))
    const line = {
      time: date.toISOString(),
      level: levelName(logLevel),
      message: text(message),
      ...(game === undefined ? {} : { game: String(game) }),
      ...processLogFields,
      ...(Cause.isEmpty(cause) ? {} : { cause: Cause.pretty(cause).split("\n")[0] })
    }
    write(fd, JSON.stringify(line) + "\n")
  })

export const stderrLogging = Logger.replace(Logger.defaultLogger, lineLogger(2))
