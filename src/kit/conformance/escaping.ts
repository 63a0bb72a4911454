/**
 * How the kit shows bytes to people (on one line, control characters escaped, cut when
 * long), and takes a datagram written as text back to its bytes.
 */

const latin1 = new TextDecoder("latin1")

/** The bytes as text a person can read on one line: escapes for control characters, cut when long. */
export const escaped = (bytes: Uint8Array | string, max = 100): string => {
  const text = typeof bytes === "string" ? bytes : latin1.decode(bytes)
  const shown = JSON.stringify(text.length > max ? text.slice(0, max) : text)
    .replace(/\\u00([0-9a-f]{2})/g, "\\x$1")
    .replace(/[\u0080-\u00ff]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`)
  return text.length > max ? `${shown}... (${text.length} bytes)` : shown
}

/** A datagram given as text (a character per byte, as the kit writes them) or as bytes: its bytes. */
export const bytesOf = (datagram: string | Uint8Array): Uint8Array =>
  typeof datagram === "string" ? Buffer.from(datagram, "latin1") : datagram
