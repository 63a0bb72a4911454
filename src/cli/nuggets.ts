import { Console, Effect } from "effect"
import { colourWanted } from "../colour.js"
import { version } from "../version.js"
import { archiveNode } from "./archive.js"
import { botNode } from "./bot.js"
import { checkNode } from "./check.js"
import { group } from "./command.js"
import { hostNode } from "./host.js"
import { joinNode } from "./join.js"
import { mapNode } from "./map.js"
import { playNode } from "./play.js"
import { proxyNode } from "./proxy.js"
import { replayNode } from "./replay.js"
import { runCommandLine } from "./runner.js"
import { serveNode } from "./serve.js"

export const nuggets = group(
  "nuggets",
  "Nuggets: a multiplayer exploration game over UDP. Try 'nuggets play'.",
  [playNode, serveNode, hostNode, joinNode, botNode, replayNode, mapNode, archiveNode, proxyNode, checkNode]
)

/** Help's width: the terminal's, or 80 when it is not shown on one. */
const helpLayout = () => ({
  colour: colourWanted(process.stdout),
  width: process.stdout.isTTY === true && process.stdout.columns > 0 ? process.stdout.columns : 80
})

/**
 * The program, for a command line as `process.argv` gives it: what it prints goes through
 * the Console, a failure is one line on stderr, `nuggets: <what> — <why>`. Gives the exit code.
 */
export const runCli = (argv: ReadonlyArray<string>) =>
  runCommandLine(nuggets, version, argv, helpLayout()).pipe(
    Effect.as(0),
    Effect.catchTag("CliError", (error) => Console.error(`nuggets: ${error.message}`).pipe(Effect.as(1)))
  )
