/**
 * `node --import tsx scripts/bench/heal.ts [--games N]`: the time a start takes to make a
 * damaged index again, from N recordings (1,000 by default). The recordings are of games
 * played to their end by the real core and recorder (on the three built-in maps, two to four
 * players), a few dozen of them copied under new names up to N. They are indexed, then 8 KB
 * of random bytes are written into the middle of `archive.db`, as a failing disk might. The
 * start is timed as a host makes it: the index checked (`PRAGMA quick_check`), the damaged
 * file set aside, and a new one made from every recording (`reconcile`); beside it, a start
 * on the sound index, its check included. Prints the figures; asserts nothing.
 * `benchHeal` gives them to `npm run bench`.
 */
import { Context, Effect, Layer, Random } from "effect"
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Archive, archiveLayer } from "../../src/archive/archive.js"
import { archiveFiles } from "../../src/archive/dataDir.js"
import { sqliteBackend } from "../../src/archive/sqlite.js"
import { mapText } from "../../src/core/map.js"
import { builtInMaps } from "../../src/host/maps.js"
import { openLineFile } from "../../src/recording/writer.js"
import { playRecorded } from "../../test/archive/play.js"
import { round } from "./stats.js"

const maps = builtInMaps()
const known = maps.map((each) => ({ name: each.name, mapText: mapText(each.map) }))
const names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus"]
/** Games played for real; the others are their copies. */
const distinct = 36

/** Game `i`'s id, as the archive names them: a minute apart from the first of 2026, then a suffix. */
const idAt = (i: number) => {
  const iso = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
  return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}-${i.toString(36).padStart(4, "0")}`
}

/** `count` recordings in `games`: `distinct` games played to their end, then copies of them. */
const record = (games: string, count: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < Math.min(count, distinct); i++) {
      const map = maps[i % maps.length]!
      const players = names.slice(i % 3, (i % 3) + 2 + (i % 3))
      yield* Effect.scoped(playRecorded({ to: openLineFile(join(games, `${idAt(i)}.ndjson`)), map: map.map, seed: i, players }))
    }
    for (let i = distinct; i < count; i++) copyFileSync(join(games, `${idAt(i % distinct)}.ndjson`), join(games, `${idAt(i)}.ndjson`))
  })

/**
 * A start's work on the archive in `dataDir`: opened (the index checked), owned, reconciled.
 * Its wall time, its CPU time (a busy machine makes it wait for a core, which the wall time
 * shows and the CPU time does not), and what it did.
 */
const start = (dataDir: string) =>
  Effect.scoped(Effect.gen(function*() {
    const began = performance.now()
    const cpu = process.cpuUsage()
    const archive = Context.get(yield* Layer.build(archiveLayer.pipe(Layer.provide(sqliteBackend({ dataDir, create: false })))), Archive)
    const owner = yield* archive.own
    const done = yield* owner.reconcile(known)
    const used = process.cpuUsage(cpu)
    return { ms: round(performance.now() - began, 1), cpuMs: round((used.user + used.system) / 1000, 1), done }
  }))

/** 8 KB of seeded random bytes over the middle of `file`: the same damage at every run. */
const damage = (file: string) => {
  const bytes = Uint8Array.from(Effect.runSync(Effect.replicateEffect(Random.nextIntBetween(0, 256), 8192).pipe(Effect.withRandom(Random.make(34)))))
  const fd = openSync(file, "r+")
  try {
    writeSync(fd, bytes, 0, bytes.length, Math.max(0, Math.floor((statSync(file).size - bytes.length) / 2)))
  } finally {
    closeSync(fd)
  }
}

export const benchHeal = async (options: { readonly games?: number } = {}) => {
  const count = options.games ?? 1000
  const dataDir = mkdtempSync(join(tmpdir(), "nuggets-bench-heal-"))
  try {
    const { database, games } = archiveFiles(dataDir)
    mkdirSync(games, { recursive: true })
    await Effect.runPromise(record(games, count))
    const files = readdirSync(games)
    const lines = files.reduce((sum, name) => sum + readFileSync(join(games, name), "utf8").split("\n").length - 1, 0)
    const bytes = files.reduce((sum, name) => sum + statSync(join(games, name)).size, 0)
    const firstIndex = await Effect.runPromise(start(dataDir))
    const sound = await Effect.runPromise(start(dataDir))
    damage(database)
    const healed = await Effect.runPromise(start(dataDir))
    const { repaired, indexed, skipped } = healed.done
    if (repaired === undefined || indexed.length !== count || skipped.length > 0) throw new Error("the bench's index was not made again from every recording")
    return {
      games: count,
      recordings: { distinct: Math.min(count, distinct), linesEach: round(lines / count), kbEach: round(bytes / count / 1024, 1) },
      databaseKB: round(statSync(database).size / 1024),
      found: repaired.found,
      firstIndexMs: firstIndex.ms,
      soundStartMs: sound.ms,
      rebuildMs: healed.ms,
      rebuildCpuMs: healed.cpuMs
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf("--games")
  const figures = await benchHeal(at === -1 ? {} : { games: Number(process.argv[at + 1]) })
  console.log(JSON.stringify(figures, null, 2))
  console.log(
    `a damaged index of ${figures.games} games made again at start in ${figures.rebuildMs} ms (CPU ${figures.rebuildCpuMs} ms) ` +
      `(a start on the sound index: ${figures.soundStartMs} ms)`
  )
}
