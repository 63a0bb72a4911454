import { Either, Schema } from "effect"
import { readJsonLines } from "./jsonLines.js"

/**
 * A transcript: the datagrams of a session between clients and a server, byte for byte,
 * as newline-delimited JSON. The first line is a header,
 * `{"transcript":1,"source":"…","map":"main.txt",…}` (more fields as the writer likes);
 * then one line per datagram, `{"t":12,"from":"server","client":0,"data":"OK A"}`: when
 * (milliseconds since the start), which way, which client (numbered from 0 in order of
 * first appearance, no addresses) and the bytes as latin1 text, so that any byte
 * survives and the text still reads as the protocol's ASCII.
 *
 * No Node imports: the browser page reads the same format.
 */

export const transcriptVersion = 1

export const TranscriptHeader = Schema.Struct(
  {
    transcript: Schema.Literal(transcriptVersion),
    /** Where the datagrams came from: a program, its version, how it was run. */
    source: Schema.String,
    /** The name of the map file the server played. */
    map: Schema.String
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type TranscriptHeader = typeof TranscriptHeader.Type

export const TranscriptEntry = Schema.Struct({
  t: Schema.Number,
  from: Schema.Literal("server", "client"),
  client: Schema.Int.pipe(Schema.nonNegative()),
  data: Schema.String
})
export type TranscriptEntry = typeof TranscriptEntry.Type

export interface Transcript {
  readonly header: TranscriptHeader
  readonly entries: ReadonlyArray<TranscriptEntry>
}

/** Bytes as latin1 text: one char per byte, U+0000 to U+00FF. */
export const latin1 = (bytes: Uint8Array): string => {
  let text = ""
  // In slices: String.fromCharCode takes its arguments on the stack. By `apply`, which reads
  // the bytes as they are; a spread would walk them with an iterator, seven times slower.
  for (let start = 0; start < bytes.length; start += 8192) {
    text += String.fromCharCode.apply(null, bytes.subarray(start, start + 8192) as unknown as Array<number>)
  }
  return text
}

/** The bytes of latin1 text; a char above U+00FF cannot come from a byte, and is an error. */
export const latin1Bytes = (text: string): Either.Either<Uint8Array, string> => {
  const bytes = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code > 0xff) return Either.left(`char ${i} (U+${code.toString(16).toUpperCase().padStart(4, "0")}) is not a byte`)
    bytes[i] = code
  }
  return Either.right(bytes)
}

/** The header line, ending in a newline. */
export const headerLine = (header: TranscriptHeader): string => JSON.stringify(header) + "\n"

/** One datagram's line, ending in a newline; `data` is the datagram's bytes, or latin1 text already. */
export const entryLine = (
  entry: Omit<TranscriptEntry, "data"> & { readonly data: Uint8Array | string }
): string =>
  JSON.stringify({
    t: entry.t,
    from: entry.from,
    client: entry.client,
    data: typeof entry.data === "string" ? entry.data : latin1(entry.data)
  }) + "\n"

/**
 * Numbers clients in order of first appearance, as a transcript does: give it whatever
 * tells clients apart (an address and port), get 0, 1, 2, …
 */
export const clientNumbering = <K>(): ((key: K) => number) => {
  const numbers = new Map<K, number>()
  return (key) => {
    let number = numbers.get(key)
    if (number === undefined) numbers.set(key, number = numbers.size)
    return number
  }
}

const decodeHeader = Schema.decodeUnknownEither(Schema.parseJson(TranscriptHeader))
const decodeEntry = Schema.decodeUnknownEither(Schema.parseJson(TranscriptEntry))

/**
 * Reads a transcript, checking every line. A last line cut short (the writer was stopped
 * mid-line) is dropped; any other bad line is an error naming it.
 */
export const parseTranscript = (text: string): Either.Either<Transcript, string> =>
  readJsonLines(text, {
    empty: "the transcript is empty",
    header: (line) =>
      Either.mapLeft(
        decodeHeader(line),
        () => /"transcript"/.test(line) ? "line 1: not a transcript header this version can read" : "not a transcript"
      ),
    entry: (line) =>
      Either.flatMap(
        Either.mapLeft(decodeEntry(line), () => undefined),
        (entry) => Either.mapBoth(latin1Bytes(entry.data), { onLeft: (why) => `data ${why}`, onRight: () => entry })
      ),
    notEntry: "not a transcript entry"
  })

/** The bytes of an entry's datagram. */
export const entryBytes = (entry: TranscriptEntry): Uint8Array => Either.getOrThrow(latin1Bytes(entry.data))
