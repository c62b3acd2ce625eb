// Vite's `?raw` imports (a file's text), as vitest resolves them.
declare module "*?raw" {
  const text: string;
  export default text;
}
