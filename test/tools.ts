import { accessSync, constants } from "node:fs"
import { delimiter, join } from "node:path"

const runnable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * A program the tests drive (tmux, chromium): its path, or an error of one line that says
 * how to install it, rather than a `spawn ENOENT` deep in a test.
 */
export const requireTool = (command: string, debianPackage: string): string => {
  const found = command.includes("/")
    ? runnable(command) ? command : undefined
    : (process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, command)).find(runnable)
  if (found === undefined) {
    throw new Error(`${command} is not installed, and the tests need it: sudo apt-get install ${debianPackage} (bash .ci/run does)`)
  }
  return found
}
