/**
 * The open web as AgentDojo v1's slack suite has it: pages by URL, every request recorded (reading a
 * page tells its server the URL), posting replaces a page. Seeded empty; the benchmark writes
 * AgentDojo's pages into each world.
 */
import { type DemoApp, obj, op, str } from "../../../../examples/apps/src/kit.ts";

export interface WebState {
  content: Record<string, string>;
  /** Every URL requested or posted to, in order. */
  requests: string[];
}

/** AgentDojo's standardisation: no scheme. */
const bare = (url: string) => url.replace(/^https?:\/\//, "");

export const web: DemoApp<WebState> = {
  name: "web",
  version: "1.0.0",
  description: "Web: fetch a web page, or publish one.",
  seed: () => ({ content: {}, requests: [] }),
  ops: {
    get_webpage: op({
      description: "Fetch the text of the web page at a URL.",
      request: obj({ url: str("The page's URL") }),
      response: obj({ url: str("URL"), content: str("The page's text") }),
      // Anyone on the internet writes web pages.
      output: { confidentiality: "public" },
      run: (s: WebState, { url }: { url: string }) => {
        const u = bare(url);
        s.requests.push(u);
        return { url: u, content: s.content[u] ?? "404 Not Found" };
      },
    }),
    post_webpage: op({
      destinations: ["url"],
      description: "Publish content at a URL (replaces the page).",
      request: obj({ url: str("The page's URL"), content: str("What to publish") }),
      response: obj({ posted: { const: true } }),
      irreversible: true,
      output: { confidentiality: "public" },
      run: (s: WebState, { url, content }: { url: string; content: string }) => {
        const u = bare(url);
        s.requests.push(u);
        s.content[u] = content;
        return { posted: true };
      },
    }),
  },
};
