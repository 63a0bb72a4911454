import { Either } from "effect"
import { describe, expect, it } from "vitest"
import {
  clientNumbering,
  entryBytes,
  entryLine,
  headerLine,
  latin1,
  latin1Bytes,
  parseTranscript
} from "../src/protocol/transcript.js"

const header = { transcript: 1 as const, source: "a test", map: "small.txt", seed: 7 }

describe("transcripts", () => {
  it("keep every byte of every datagram, and read back what was written", () => {
    const odd = Uint8Array.from([0x44, 0x0a, 0x00, 0x7f, 0x80, 0xe9, 0xff, 0x22, 0x5c])
    const text = headerLine(header) +
      entryLine({ t: 0, from: "client", client: 0, data: "PLAY Alice" }) +
      entryLine({ t: 3, from: "server", client: 0, data: odd }) +
      entryLine({ t: 5, from: "server", client: 1, data: new Uint8Array(0) })
    const read = Either.getOrThrow(parseTranscript(text))
    expect(read.header).toEqual(header)
    expect(read.entries.map((entry) => [entry.t, entry.from, entry.client])).toEqual([[0, "client", 0], [3, "server", 0], [5, "server", 1]])
    expect(entryBytes(read.entries[1]!)).toEqual(odd)
    expect(entryBytes(read.entries[2]!)).toEqual(new Uint8Array(0))
    // One line per datagram: newlines inside a datagram are escaped.
    expect(text.split("\n")).toHaveLength(5)
  })

  it("latin1 round-trips all 256 byte values, also past the size of one slice", () => {
    const all = Uint8Array.from({ length: 20_000 }, (_, i) => i % 256)
    expect(Either.getOrThrow(latin1Bytes(latin1(all)))).toEqual(all)
    expect(latin1Bytes("ok \u0100")).toEqual(Either.left("char 3 (U+0100) is not a byte"))
  })

  it("drop a last line cut short, but refuse a bad line anywhere else", () => {
    const good = headerLine(header) + entryLine({ t: 0, from: "server", client: 0, data: "OK A" })
    const torn = good + `{"t":4,"from":"ser`
    expect(Either.getOrThrow(parseTranscript(torn)).entries).toHaveLength(1)
    expect(parseTranscript(torn + "\n")).toEqual(Either.left("line 3: not a transcript entry"))
    expect(parseTranscript(good + `{"t":1,"from":"proxy","client":0,"data":""}\n`)).toEqual(
      Either.left("line 3: not a transcript entry")
    )
    expect(parseTranscript(good + `{"t":1,"from":"server","client":0,"data":"\u0101"}\n`)).toEqual(
      Either.left("line 3: data char 0 (U+0101) is not a byte")
    )
  })

  it("refuse what is not a transcript, or another version of one", () => {
    expect(parseTranscript("")).toEqual(Either.left("the transcript is empty"))
    expect(parseTranscript(`{"format":"nuggets-recording"}\n`)).toEqual(Either.left("not a transcript"))
    expect(parseTranscript(`{"transcript":2,"source":"x","map":"m"}\n`)).toEqual(
      Either.left("line 1: not a transcript header this version can read")
    )
  })

  it("number clients by first appearance", () => {
    const number = clientNumbering<string>()
    expect(["b:1", "a:2", "b:1", "c:3", "a:2"].map(number)).toEqual([0, 1, 0, 2, 1])
  })
})
