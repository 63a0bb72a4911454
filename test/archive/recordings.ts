import { afterAll } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { rules2019 } from "../../src/core/rules.js"
import { summaryText } from "../../src/protocol/dialect.js"
import { digestOf, formatName, formatVersion, ranked } from "../../src/recording/format.js"
import { version } from "../../src/version.js"
import { mapsDir } from "../support.js"

/**
 * Recordings written by hand, for the archive: a header and, if the game ended, its last
 * line with the standings and the summary (the archive reads the standings there; it
 * replays only a recording without them, and one with no moves replays at once).
 */
export interface Handmade {
  /** A file of maps/. */
  readonly map: string
  /** ISO 8601. */
  readonly started: string
  readonly players?: ReadonlyArray<{ readonly letter: string; readonly name: string; readonly purse: number }>
  /** Today's words, or those of the recordings made before them. */
  readonly end?: "over" | "stopped" | "game over" | "shut down"
  readonly durationMs?: number
  readonly seed?: number
  /** The summary's text, if not the one the players make. */
  readonly summary?: string
}

export const mapTextOf = (map: string) => readFileSync(join(mapsDir, map), "utf8")

export const handmadeRecording = (game: Handmade): string => {
  const map = mapTextOf(game.map)
  const header = {
    format: formatName,
    formatVersion,
    program: version,
    seed: game.seed ?? 1,
    rules: rules2019,
    dialect: "2019",
    map,
    mapDigest: digestOf(map),
    started: game.started
  }
  const t = game.durationMs ?? 0
  const lines: Array<unknown> = [header]
  const players = game.players ?? []
  if (game.end !== undefined) lines.push({ t, end: game.end, summary: game.summary ?? summaryText(players), standings: ranked(players) })
  return lines.map((line) => JSON.stringify(line)).join("\n") + "\n"
}

/**
 * `recording` as nuggets wrote it before its end line carried the standings, byte for byte:
 * `{"t":…,"end":…,"summary":…}`, and `"failure"` after it for a failed game.
 */
export const withoutStandings = (recording: string): string =>
  recording.split("\n").map((line) => {
    if (line === "") return line
    const entry = JSON.parse(line) as Record<string, unknown>
    if (!("end" in entry)) return line
    delete entry.standings
    return JSON.stringify(entry)
  }).join("\n")

/** Writes `text` as the recording `id` in the data directory `dataDir`; gives its path. */
export const dropRecording = (dataDir: string, id: string, text: string): string => {
  mkdirSync(join(dataDir, "games"), { recursive: true })
  const file = join(dataDir, "games", `${id}.ndjson`)
  writeFileSync(file, text)
  return file
}

/** Makes temporary folders for a test file (`nuggets-<name>-...`), all removed after its tests. */
export const scratchFolders = (name: string) => {
  const made: Array<string> = []
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `nuggets-${name}-`))
    made.push(dir)
    return dir
  }
}
