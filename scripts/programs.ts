/**
 * The programs of this system that the tests run, where each is looked for and the Debian
 * package that brings it: the one place that says so. `npm test` checks them all first and
 * installs what is missing where it may (scripts/test.ts); a test finds its program here.
 */
import { accessSync, constants, readdirSync } from "node:fs"
import { delimiter, join } from "node:path"

export interface SystemProgram {
  /** What the tests call it. */
  readonly name: string
  /** A name looked for on PATH, or a path, whose folders may hold a `*` (one version folder, say). */
  readonly at: string
  readonly debianPackage: string
}

export const systemPrograms: ReadonlyArray<SystemProgram> = [
  { name: "tmux", at: "tmux", debianPackage: "tmux" },
  { name: "chromium", at: process.env.CHROMIUM ?? "/usr/bin/chromium", debianPackage: "chromium" },
  // Debian keeps PostgreSQL's programs in a folder per version, not on PATH.
  { name: "initdb", at: "/usr/lib/postgresql/*/bin/initdb", debianPackage: "postgresql" },
  { name: "pg_ctl", at: "/usr/lib/postgresql/*/bin/pg_ctl", debianPackage: "postgresql" },
  // The deployment's unit is checked by it (test/deploy.test.ts).
  { name: "systemd-analyze", at: "systemd-analyze", debianPackage: "systemd" },
  // The host's /metrics is checked by it (test/host-operations.test.ts).
  { name: "promtool", at: "promtool", debianPackage: "prometheus" }
]

const runnable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

const entries = (folder: string) => {
  try {
    // The newest version first.
    return readdirSync(folder).sort((a, b) => b.localeCompare(a, "en", { numeric: true }))
  } catch {
    return []
  }
}

/** A folder's name that `*` in a pattern's segment matches. */
const wildcard = (segment: string) =>
  new RegExp(`^${segment.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`)

/** Every path a pattern names, a `*` standing for any part of one folder's name, the highest numbers first. */
const expand = (pattern: string): ReadonlyArray<string> => {
  const [first, ...rest] = pattern.split("/")
  return rest.reduce<ReadonlyArray<string>>(
    (paths, segment) =>
      segment.includes("*")
        ? paths.flatMap((path) => entries(path || "/").filter((name) => wildcard(segment).test(name)).map((name) => `${path}/${name}`))
        : paths.map((path) => `${path}/${segment}`),
    [first!]
  )
}

/** Where a program is on this machine, if it is. */
export const locate = (program: SystemProgram): string | undefined =>
  program.at.includes("/")
    ? expand(program.at).find(runnable)
    : (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "").map((dir) => join(dir, program.at)).find(runnable)

/** The Debian packages that bring these programs, each once. */
export const debianPackages = (programs: ReadonlyArray<SystemProgram>) => [...new Set(programs.map((program) => program.debianPackage))]

/** The one command that installs these programs' packages, for a person to run. */
export const installCommand = (programs: ReadonlyArray<SystemProgram>) => `sudo apt-get install -y ${debianPackages(programs).join(" ")}`

/** What is missing, and the command that installs it, in one line. */
export const missingLine = (programs: ReadonlyArray<SystemProgram>) =>
  `not found: ${programs.map((program) => program.at === program.name ? program.name : `${program.name} at ${program.at}`).join(", ")}; the tests need ${programs.length === 1 ? "it" : "them"}: ${installCommand(programs)}`

/** The path of the program the tests call `name`; when it is missing, an error of the one line `npm test` would have printed first. */
export const systemProgram = (name: string): string => {
  const program = systemPrograms.find((each) => each.name === name)
  if (program === undefined) throw new Error(`${name} is not among scripts/programs.ts's programs`)
  const found = locate(program)
  if (found === undefined) throw new Error(missingLine([program]))
  return found
}
