import base from "./vitest.config.js"
export default { ...base, test: { ...base.test, setupFiles: ["test/zz-inst-setup.ts"] } }
