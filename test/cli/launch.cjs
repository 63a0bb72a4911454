// Runs the test run's `nuggets` bundle (argv[2]) with the V8 code cache made beside it
// (global-setup.ts): each of the hundred-odd programs the tests start then skips compiling
// the bundle's 1.2 MB, a third of its start-up. The program sees the argv it would have.
const { readFileSync } = require("node:fs")
const Module = require("node:module")
const { dirname } = require("node:path")
const { Script } = require("node:vm")

const file = process.argv[2]
const script = new Script(Module.wrap(readFileSync(file, "utf8")), { filename: file, cachedData: readFileSync(`${file}.v8`) })
const bundle = new Module(file, module)
bundle.filename = file
bundle.paths = Module._nodeModulePaths(dirname(file))
process.argv.splice(1, 2, file)
script.runInThisContext().call(bundle.exports, bundle.exports, (id) => bundle.require(id), bundle, file, dirname(file))
