import packageJson from "../package.json" with { type: "json" }

/** The program's version, as package.json says: recordings carry it. */
export const version: string = packageJson.version
