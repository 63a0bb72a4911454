/** A count and its noun, agreeing: `1 game`, `2 games`; `many` for a plural not made with an s. */
export const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`
