import { Cause, Logger } from "effect"
import { writeSync } from "node:fs"

const text = (message: unknown): string =>
  Array.isArray(message) ? message.map(text).join(" ") : typeof message === "string" ? message : String(message)

/**
 * One line per entry (time, level, message) written straight to a file descriptor:
 * stderr by default, so stdout carries only what the program is meant to print.
 */
export const lineLogger = (fd = 2) =>
  Logger.make(({ cause, date, logLevel, message }) => {
    const failure = Cause.isEmpty(cause) ? "" : ` ${Cause.pretty(cause).split("\n")[0]}`
    // A message of several lines becomes several entries, each with the time and level.
    const prefix = `${date.toISOString()} ${logLevel.label} `
    const lines = `${text(message)}${failure}`.split("\n")
    try {
      writeSync(fd, lines.map((line) => prefix + line + "\n").join(""))
    } catch {
      // A closed or full log must never take the game down.
    }
  })

export const stderrLogging = Logger.replace(Logger.defaultLogger, lineLogger(2))
