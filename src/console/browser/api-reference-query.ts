/** The API reference filter's match (no DOM: tested in Node, test/contract/api-reference.test.ts). */

/** Whether an operation's text (method, path, tag, summary; lower case) holds every word of the query. */
export function matchesQuery(text: string, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return words.every((w) => text.includes(w));
}
