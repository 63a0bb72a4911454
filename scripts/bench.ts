/** `npm run bench`: prints the figures; never asserts them. */
import { fileURLToPath } from "node:url"
import { benchCore } from "./bench/core.js"

const maps = fileURLToPath(new URL("../maps/", import.meta.url))

console.log("Core: cost per keystroke (move + 27 DISPLAYs brought up to date)")
console.table([benchCore(maps + "main.txt"), benchCore(maps + "large.txt", 10_000)])
