import { Console, Effect } from "effect"
import { keyHelp, spectatorKeyHelp } from "../client/keymap.js"
import { farewell } from "../client/screen.js"
import { type ClientExit, exitCode } from "../client/state.js"
import type { HelpSection } from "./command.js"
import { CliError } from "./error.js"

/** What the commands with a screen (play, join, replay) share. */

/**
 * A screen needs a terminal on both sides: keys from it, the screen to it. Without one,
 * the screen's codes would land in a file and piped keys would play blind, so the command
 * is refused, saying what works without one.
 */
export const needsTerminal = (command: string, instead: string): Effect.Effect<void, CliError> =>
  Effect.suspend(() =>
    process.stdin.isTTY === true && process.stdout.isTTY === true
      ? Effect.void
      : Effect.fail(new CliError({ message: `${command} needs a terminal for its input and output (${instead})` }))
  )

/** A player's name, checked here rather than refused by the server: not empty, not only blanks. */
export const checkName = (name: string, label = "NAME"): Effect.Effect<string, CliError> =>
  name.trim() === "" ? Effect.fail(new CliError({ message: `${label} — must not be empty or blank` })) : Effect.succeed(name)

/** How wide what is printed after the screen may be: the terminal's width, or 80. */
export const printWidth = () => (process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : 80)

/** What the player reads after the screen is gone; a refusal or a bad grid is an error. */
export const reportExit = (exit: ClientExit) =>
  Effect.gen(function*() {
    const text = farewell(exit, printWidth())
    if (exitCode(exit) !== 0) return yield* new CliError({ message: text })
    if (text) yield* Console.log(text)
  })

/** The keys, as help lists them under the commands that play: the same lists as the `?` overlay. */
export const keysSections: ReadonlyArray<HelpSection> = [
  { title: "Keys", rows: keyHelp },
  { title: "Keys of the spectator", rows: spectatorKeyHelp }
]
