/**
 * `node --import tsx test/archive/crash-child.ts DATA`: a process that hosts games in the
 * archive DATA as a host does, to be killed with SIGKILL by test/archive-crash.test.ts.
 * It plays 10 games to their end (started, recorded, ended) and 10 more that stop after a
 * few keys and wait for more; prints `ready {"ended":[...],"playing":[...]}`; then starts
 * and ends short games one after another, printing `churned N` after each, until killed.
 */
import { Deferred, Effect, Random } from "effect"
import { mapText } from "../../src/core/map.js"
import { loadMap } from "../support.js"
import { openArchive } from "./open.js"
import { playRecorded } from "./play.js"

const dataDir = process.argv[2]!
const map = loadMap("small.txt")
const start = { mapName: "small", mapText: mapText(map), variant: "classic", dialect: "2019" } as const

const program = Effect.gen(function*() {
  const archive = yield* openArchive({ dataDir, create: true })
  const owner = yield* archive.own
  yield* owner.reconcile()
  const playToTheEnd = (seed: number) =>
    Effect.gen(function*() {
      const game = yield* owner.gameStarted({ ...start, seed })
      yield* Effect.scoped(playRecorded({ to: game.recording, map, seed, players: ["Ann", "Bo", "Cy"], pace: "1 millis" }))
      yield* owner.gameEnded(game.id)
      return game.id
    })
  const ended = yield* Effect.forEach([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], playToTheEnd, { concurrency: "unbounded" })
  const playing = yield* Effect.forEach([11, 12, 13, 14, 15, 16, 17, 18, 19, 20], (seed) =>
    Effect.gen(function*() {
      const game = yield* owner.gameStarted({ ...start, seed })
      const moved = yield* Deferred.make<void>()
      yield* Effect.scoped(
        playRecorded({ to: game.recording, map, seed, players: ["Ann", "Bo"], moves: 12 }).pipe(
          Effect.zipRight(Deferred.succeed(moved, undefined)),
          Effect.zipRight(Effect.never)
        )
      ).pipe(Effect.forkDaemon)
      yield* Deferred.await(moved)
      return game.id
    }), { concurrency: "unbounded" })
  yield* Effect.sync(() => console.log(`ready ${JSON.stringify({ ended, playing })}`))
  for (let churned = 1; ; churned++) {
    yield* playToTheEnd(100 + churned)
    yield* Effect.sync(() => console.log(`churned ${churned}`))
  }
})

Effect.runPromise(program.pipe(Effect.scoped, Effect.withRandom(Random.make(1)))).catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
