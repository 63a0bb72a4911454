import { Command } from "@effect/cli"
import { botCommand } from "./bot/command.js"
import { joinCommand } from "./client/command.js"
import { mapCommand } from "./mapCommand.js"
import { playCommand } from "./playCommand.js"
import { serveCommand } from "./server/command.js"

export const version = "0.1.0"

export const nuggets = Command.make("nuggets").pipe(
  Command.withDescription("Nuggets: a multiplayer exploration game over UDP."),
  Command.withSubcommands([playCommand, serveCommand, joinCommand, botCommand, mapCommand])
)

export const runCli = Command.run(nuggets, { name: "nuggets", version })
