import { Effect } from "effect"
import { readFileSync, statSync } from "node:fs"
import { errnoOf, errnoWords } from "../net/errno.js"
import { CliError } from "./error.js"

/**
 * The operator's token, from `--admin-token-file`: a file only its owner may read or write
 * (mode 600 or 400, as ssh holds its keys), else refused before anything starts; its first
 * line, which must not be empty.
 */
export const readOperatorToken = (file: string): Effect.Effect<string, CliError> =>
  Effect.try({
    try: () => {
      const { mode, uid } = statSync(file)
      if ((mode & 0o077) !== 0) {
        throw new CliError({ message: `--admin-token-file — ${file} may be read by others (mode ${(mode & 0o777).toString(8)}): chmod 600 ${file}` })
      }
      if (process.getuid !== undefined && uid !== process.getuid()) {
        throw new CliError({ message: `--admin-token-file — ${file} is not this user's own` })
      }
      const token = readFileSync(file, "utf8").split(/\r?\n/)[0]!.trim()
      if (token === "") throw new CliError({ message: `--admin-token-file — ${file} holds no token on its first line` })
      return token
    },
    catch: (error) =>
      error instanceof CliError ? error : new CliError({ message: `--admin-token-file — ${file}: ${errnoWords(errnoOf(error), String(error))}` })
  })
