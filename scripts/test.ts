/**
 * `npm test`: first the system programs the tests run (scripts/programs.ts), installed with
 * apt-get where this user may (root, or sudo without a password) and otherwise named with the
 * command that installs them; then the two type checks and the tests, side by side. The
 * tests mostly wait on sockets, terminals and a browser, so the cores have room for tsc
 * meanwhile; the run fails if any of them fails. Arguments go to vitest
 * (`npm test -- test/map.test.ts`).
 */
import { spawn, spawnSync, type SpawnSyncOptions } from "node:child_process"
import { fileURLToPath } from "node:url"
import { debianPackages, locate, missingLine, systemPrograms } from "./programs.js"

const root = fileURLToPath(new URL("../", import.meta.url))
const bin = (name: string) => `${root}node_modules/.bin/${name}`

const stop = (line: string): never => {
  console.error(`npm test: ${line}`)
  process.exit(1)
}

const missing = systemPrograms.filter((program) => locate(program) === undefined)
if (missing.length > 0) {
  const asRoot = process.getuid?.() === 0
  if (!asRoot && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status !== 0) stop(missingLine(missing))
  const packages = debianPackages(missing)
  console.error(`npm test: installing ${packages.join(" ")} with apt-get (the tests run them)`)
  const quiet: SpawnSyncOptions = { stdio: ["ignore", "ignore", "pipe"] }
  const apt = (...args: ReadonlyArray<string>) => {
    const command = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-qq", ...args]
    const done = asRoot ? spawnSync(command[0]!, command.slice(1), quiet) : spawnSync("sudo", ["-n", ...command], quiet)
    if (done.status !== 0) stop(`apt-get ${args.join(" ")} failed: ${(done.error?.message ?? done.stderr.toString()).trim()}`)
  }
  apt("update")
  apt("install", "-y", ...packages)
  const still = missing.filter((program) => locate(program) === undefined)
  if (still.length > 0) stop(missingLine(still))
}

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
