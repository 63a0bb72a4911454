import { setFlagsFromString } from "node:v8"

// V8 lets its young generation grow to 32 MB under a burst (a flood of pages, 26 players
// moving, the program's own start) and keeps it for good; a server that idles most of the
// time is better served by the first size, read afresh at each growth. Set here, in a module
// main.ts imports first, so that it holds before any other module runs: from main.ts's own
// body it came after every module had been loaded, and the young generation had grown to
// 8 MB by then. (A flag given on the command line instead would not reach the binary, which
// takes no node options.)
setFlagsFromString("--semi-space-growth-factor=1")
