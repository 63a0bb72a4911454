/**
 * `npm test`: the two type checks and the tests, side by side. The tests mostly wait on
 * sockets, terminals and a browser, so the cores have room for tsc meanwhile; the run fails
 * if any of them fails. Arguments go to vitest (`npm test -- test/map.test.ts`).
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const bin = (name: string) => `${root}node_modules/.bin/${name}`

const run = (command: string, args: ReadonlyArray<string>) =>
  new Promise<number>((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: "inherit" })
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)))
    child.on("error", () => resolve(1))
  })

// The type checks are package.json's `typecheck`, so that they are written in one place.
const codes = await Promise.all([
  run("npm", ["run", "--silent", "typecheck"]),
  run(bin("vitest"), ["run", "--config", "test/vitest.config.ts", ...process.argv.slice(2)])
])
process.exitCode = codes.some((code) => code !== 0) ? 1 : 0
