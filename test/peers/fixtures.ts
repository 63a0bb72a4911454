import { Either } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { entryBytes, parseTranscript, type Transcript, type TranscriptEntry } from "../../src/protocol/transcript.js"

/** The captures of the C implementations' servers and clients (see each file's header). */
const folder = join(import.meta.dirname, "..", "fixtures", "peers")

export interface Capture {
  /** The implementation, as `owner+name` of its repository. */
  readonly peer: string
  readonly transcript: Transcript
}

const load = (suffix: string): ReadonlyArray<Capture> =>
  readdirSync(folder)
    .filter((file) => file.endsWith(suffix))
    .sort()
    .map((file) => ({
      peer: file.slice(0, -suffix.length),
      transcript: Either.getOrThrow(parseTranscript(readFileSync(join(folder, file), "utf8")))
    }))

/** A short game against each C server: client 0 a player to the end, client 1 the spectator. */
export const serverCaptures = load(".server.ndjson")
/** Each C client on our server: client 0 plays, 1 plays and quits, 2 watches, 3 is a bot of ours. */
export const clientCaptures = load(".client.ndjson")

/** What went one way, to or from one client, in order. */
export const datagrams = (
  transcript: Transcript,
  from: TranscriptEntry["from"],
  client: number
): ReadonlyArray<Uint8Array> =>
  transcript.entries.filter((entry) => entry.from === from && entry.client === client).map(entryBytes)
