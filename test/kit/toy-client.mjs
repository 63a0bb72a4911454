// A tiny Nuggets client for the checker's tests, in plain Node so that it starts at once:
// right by default, wrong on purpose with --bugs=a,b (one bug per check that must fail).
//   node toy-client.mjs [--bugs=...] HOST PORT [NAME]
import * as dgram from "node:dgram"

const args = process.argv.slice(2)
const bugs = new Set((args.find((arg) => arg.startsWith("--bugs="))?.slice(7) ?? "").split(",").filter(Boolean))
const [host, port, name] = args.filter((arg) => !arg.startsWith("--bugs="))
const out = process.stdout
const spectator = name === undefined
const socket = dgram.createSocket("udp4")
let grid
let view
let letter = "?"
let purse = 0
let left = "?"
let note = ""

const send = (text) => socket.send(text, Number(port), host)
// What the status line says, as it was last drawn: "golddisplay" draws it with each DISPLAY only.
let shownStatus = ""
const status = () => {
  // "spectatorstatus" shows the spectator a player's status line; "words" says the status in words of its own.
  const text = spectator && !bugs.has("spectatorstatus") ? `Spectator: ${left} nuggets unclaimed.` : `Player ${spectator ? " " : letter} has ${purse} nuggets (${left} nuggets unclaimed).`
  if (bugs.has("statusgone")) return "Nuggets!"
  if (bugs.has("words")) return `${letter}: ${purse} nuggets, ${left} left`
  return bugs.has("status") ? text.replace(/\.$/, "!") : text
}
// "gridswap" reads GRID as columns, then rows; "smallspace" complains in its own words and, enlarged, waits for the space bar.
let waitingForSpace = false

const draw = (fromDisplay = false) => {
  let screen = "\x1b[H\x1b[2J"
  const small = grid && (out.rows < grid.rows + 1 || out.columns < grid.cols)
  if (small && bugs.has("smallspace")) waitingForSpace = true
  if (small && bugs.has("smallspace")) return void out.write(`${screen}adjust the terminal to fit\r\nit is ${out.columns} wide`)
  if (waitingForSpace) return void out.write(`${screen}press the space bar to go on`)
  // "wraps" says it in a sentence the terminal wraps mid-word, no row of which says it alone.
  if (small && bugs.has("wraps")) return void out.write(`${screen}This screen is too small.`)
  if (small && !bugs.has("small")) {
    out.write(`${screen}Too small: need ${grid.cols} x ${grid.rows + 1}`)
    return
  }
  if (fromDisplay || !bugs.has("golddisplay")) shownStatus = status() + (note ? `  ${note}` : "")
  screen += shownStatus.slice(0, out.columns)
  const top = bugs.has("map") ? 3 : 2
  for (const [index, row] of (view ?? []).entries()) screen += `\x1b[${top + index};1H${row.slice(0, out.columns)}`
  out.write(screen)
}

// "waitskey" shows the summary at the game over and waits for a key before it leaves.
let leaving
const leave = (code, words, over = false) => {
  if (bugs.has("waitskey") && over && leaving === undefined) {
    leaving = () => leave(code, words)
    return void out.write(`\x1b[H\x1b[2JGAME OVER\r\n${words.replaceAll("\n", "\r\n")}\r\npress a key`)
  }
  if (!bugs.has("restore")) {
    out.write("\x1b[?25h\x1b[?1049l")
    process.stdin.setRawMode(false)
  }
  if (words) out.write(words.endsWith("\n") ? words : `${words}\n`)
  socket.close()
  // Node puts the terminal's modes back at any exit it sees: the buggy client dies without one.
  if (bugs.has("restore")) process.kill(process.pid, "SIGKILL")
  process.exit(code)
}

socket.on("message", (data) => {
  const text = data.toString("latin1")
  const [word] = text.split(/[ \n]/, 1)
  const rest = text.slice(word.length + 1)
  if (word === "OK") letter = rest
  else if (word === "GRID") {
    const [rows, cols] = rest.split(" ").map(Number)
    grid = bugs.has("gridswap") ? { rows: cols, cols: rows } : { rows, cols }
  } else if (word === "GOLD") {
    if (bugs.has("gold")) return
    const [n, p, r] = rest.split(" ").map(Number)
    purse = bugs.has("purse") ? purse + n : p
    left = r
    if (n > 0) note = `GOLD received: ${n}`
  } else if (word === "DISPLAY") {
    if (!rest.endsWith("\n") && bugs.has("newline")) throw new Error("a DISPLAY without its last newline")
    view = rest.split("\n").filter((row) => row !== "")
  } else if (word === "NO" || word === "ERROR") {
    if (grid === undefined) return leave(1, `refused: ${rest}`)
    if (!bugs.has("refusal") && !bugs.has("ownnote")) note = rest
  } else if (word === "QUIT") {
    if (rest.startsWith("GAME OVER:")) return leave(0, bugs.has("summary") ? "" : rest, true)
    if (bugs.has("quit")) return
    return leave(grid === undefined ? 1 : 0, rest)
  } else if (word === "GAMEOVER") {
    return leave(0, bugs.has("summary") ? "" : rest, true)
  } else if (bugs.has("note")) {
    throw new Error(`unknown message ${word}`)
  } else {
    note = `unknown message from the server: ${word}`
  }
  draw(word === "DISPLAY")
})

out.write("\x1b[?1049h\x1b[?25l")
process.stdin.setRawMode(true)
process.stdin.on("data", (keys) => {
  for (const key of keys.toString("latin1")) {
    if (leaving) return leaving()
    note = ""
    if (waitingForSpace && key === " ") {
      waitingForSpace = false
      draw(true)
      continue
    }
    // A note of its own for a key it does not know, whatever the server says.
    if (bugs.has("ownnote") && !/[hljkyubnHLJKYUBNQ]/.test(key)) {
      note = "unknown keystroke"
      draw(true)
    }
    // Not a bug: a client may ask for the view again (Ctrl-L) whenever it likes, as ours does.
    if (bugs.has("asks")) send("KEY \f")
    if (key === "Q") send("KEY Q")
    else if (bugs.has("keys") && /[HJKLYUBN]/.test(key)) send(`KEY ${key.toLowerCase()}`)
    else if (!(grid && out.rows < grid.rows + 1)) send(`KEY ${key}`)
  }
})
out.on("resize", draw)
const joinName = bugs.has("truncate") ? name : name?.slice(0, 50)
send(spectator ? "SPECTATE" : bugs.has("join") ? `play ${joinName}` : `PLAY ${joinName}`)
