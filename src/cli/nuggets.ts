import { Command } from "@effect/cli"
import { botCommand } from "./bot.js"
import { joinCommand } from "./join.js"
import { mapCommand } from "./map.js"
import { playCommand } from "./play.js"
import { serveCommand } from "./serve.js"

export const version = "0.1.0"

const nuggets = Command.make("nuggets").pipe(
  Command.withDescription("Nuggets: a multiplayer exploration game over UDP."),
  Command.withSubcommands([playCommand, serveCommand, joinCommand, botCommand, mapCommand])
)

export const runCli = Command.run(nuggets, { name: "nuggets", version })
