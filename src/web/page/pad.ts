import { padKeys } from "../../client/keymap.js"
import { keysPerSecond } from "../../server/keyLimit.js"
import { byId } from "./dom.js"

/**
 * The pad of a touch screen: a button for each of the eight directions, and one that makes
 * the moves runs (it stays on until pressed again). A button held repeats its key, at a
 * pace well within what the server takes from a client. Under them, the list of keys, as
 * `?` opens it on a keyboard: a phone has no `?` to type.
 */

/** A held button's first repeat, and the pace after: 8 a second, against the server's 60. */
const repeatAfter = 350
const repeatEvery = Math.max(125, 1000 / keysPerSecond)

/** Whether the page is on a touch screen with no finer pointer: the pad is offered there. */
export const touchScreen = () => window.matchMedia("(pointer: coarse)").matches

/**
 * Builds the pad; each press (and repeat) of a direction hands its key, a capital when
 * running, to `press`; its keys button calls `showKeys`.
 */
export const makePad = (press: (key: string) => void, showKeys: () => void): HTMLElement => {
  const pad = byId("pad")
  let running = false
  let held: ReturnType<typeof setTimeout> | undefined
  const release = () => {
    clearTimeout(held)
    clearInterval(held)
    held = undefined
  }
  for (const each of padKeys) {
    const button = document.createElement("button")
    button.type = "button"
    if (each === "run") {
      button.textContent = "run"
      button.setAttribute("aria-label", "run")
      button.setAttribute("aria-pressed", "false")
      button.addEventListener("click", () => {
        running = !running
        button.setAttribute("aria-pressed", String(running))
      })
    } else {
      button.textContent = each.arrow
      button.setAttribute("aria-label", each.name)
      const send = () => press(running ? each.key.toUpperCase() : each.key)
      button.addEventListener("pointerdown", (event) => {
        event.preventDefault()
        release()
        send()
        held = setTimeout(() => (held = setInterval(send, repeatEvery)), repeatAfter)
      })
      for (const end of ["pointerup", "pointercancel", "pointerleave"]) button.addEventListener(end, release)
      // A keyboard's Enter or Space on the focused button (its click without a pointer) moves too.
      button.addEventListener("click", (event) => {
        if (event.detail === 0) send()
      })
    }
    pad.appendChild(button)
  }
  const keys = document.createElement("button")
  keys.type = "button"
  keys.className = "keys"
  keys.textContent = "? keys"
  keys.setAttribute("aria-label", "keys")
  keys.addEventListener("click", showKeys)
  pad.appendChild(keys)
  return pad
}
