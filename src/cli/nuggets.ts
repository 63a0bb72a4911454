import { version } from "../version.js"
import { botNode } from "./bot.js"
import { joinNode } from "./join.js"
import { mapNode } from "./map.js"
import { playNode } from "./play.js"
import { replayNode } from "./replay.js"
import { group, runCommandLine } from "./runner.js"
import { serveNode } from "./serve.js"

export const nuggets = group("nuggets", {
  summary: "Nuggets: a multiplayer exploration game over UDP. Try 'nuggets play'."
}, [playNode, serveNode, joinNode, botNode, replayNode, mapNode])

export const runCli = (argv: ReadonlyArray<string>) => runCommandLine(nuggets, version, argv)
