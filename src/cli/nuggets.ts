import { botNode } from "./bot.js"
import { joinNode } from "./join.js"
import { mapNode } from "./map.js"
import { playNode } from "./play.js"
import { group, runCommandLine } from "./runner.js"
import { serveNode } from "./serve.js"

import packageJson from "../../package.json" with { type: "json" }

export const version = packageJson.version

export const nuggets = group("nuggets", {
  summary: "Nuggets: a multiplayer exploration game over UDP. Try 'nuggets play'."
}, [playNode, serveNode, joinNode, botNode, mapNode])

export const runCli = (argv: ReadonlyArray<string>) => runCommandLine(nuggets, version, argv)
