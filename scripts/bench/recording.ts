/**
 * What recording adds per keystroke, in process: the game host handling KEY datagrams from
 * 26 players (peers whose sends cost nothing), with and without `recordGame` following its feed, in
 * alternating rounds. End to end the difference drowns in the machine's noise; here it
 * does not.
 */
import { Effect, Either, Exit, Logger, LogLevel, Random, Scope } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseMap } from "../../src/core/map.js"
import { rules2019 } from "../../src/core/rules.js"
import { openLineFile, recordGame } from "../../src/recording/writer.js"
import { makeLiveGame } from "../../src/server/liveGame.js"
import type { Peer } from "../../src/server/peer.js"
import { round } from "./stats.js"

const encoder = new TextEncoder()
const moveKeys = "hjklyubnhjklyubnhjklyubnHJKLYUBN"

const hostCost = (mapFile: string, keys: number, record: string | undefined) =>
  Effect.gen(function*() {
    const map = Either.getOrThrow(parseMap(readFileSync(mapFile, "utf8")))
    const host = yield* makeLiveGame({ map })
    if (record) yield* recordGame(host, { to: openLineFile(record), seed: 1, rules: rules2019, dialect: "2019", map })
    const peers: Array<Peer> = Array.from({ length: 26 }, (_, i) => ({ id: `p${i}`, send: () => {}, keepsBytes: false }))
    for (const [i, peer] of peers.entries()) host.receive(peer, encoder.encode(`PLAY Player ${i}`))
    const datagrams = Array.from(moveKeys, (key) => encoder.encode(`KEY ${key}`))
    const started = process.hrtime.bigint()
    let pressed = 0
    for (; pressed < keys && !host.state().over; pressed++) {
      host.receive(peers[pressed % 26]!, datagrams[(pressed * 7) % datagrams.length]!)
      // A turn for the fibers the game runs (the recording's batches), as the event loop gives them between datagrams.
      if (pressed % 26 === 25) yield* Effect.yieldNow()
    }
    yield* Effect.yieldNow()
    return Number(process.hrtime.bigint() - started) / 1000 / pressed
  }).pipe(Effect.withRandom(Random.make(1)), Logger.withMinimumLogLevel(LogLevel.None))

export const benchRecording = async (mapFile: string, keys: number, rounds = 5) => {
  const dir = mkdtempSync(join(tmpdir(), "nuggets-bench-recording-"))
  const plain: Array<number> = []
  const recording: Array<number> = []
  try {
    for (let round = 0; round < rounds; round++) {
      for (const record of [undefined, join(dir, `round-${round}.ndjson`)]) {
        const scope = Effect.runSync(Scope.make())
        const micros = await Effect.runPromise(hostCost(mapFile, keys, record).pipe(Scope.extend(scope)))
        await Effect.runPromise(Scope.close(scope, Exit.void))
        ;(record ? recording : plain).push(micros)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const best = (samples: Array<number>) => Math.min(...samples)
  return {
    map: mapFile.split("/").pop()!,
    keys,
    hostMicrosPerKey: round(best(plain), 2),
    withRecordingMicrosPerKey: round(best(recording), 2),
    addedMicrosPerKey: round(best(recording) - best(plain), 2)
  }
}
