/** The emoji catalog, made at build time from the server's emoji data (web/vite.config.ts, src/emoji/catalog.ts). */
declare module 'virtual:emoji-catalog' {
  const catalog: { categories: string[]; emoji: Array<[code: string, names: string[], category: number]> };
  export default catalog;
}
