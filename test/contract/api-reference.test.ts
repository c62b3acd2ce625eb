import { describe, expect, it } from "vitest";
import snapshot from "../../clients/typescript/openapi.json";
import type { OpenApiDocument, Schema } from "../../src/console/api-reference/openapi.ts";
import { renderApiReference } from "../../src/console/api-reference/page.tsx";
import { matchesQuery } from "../../src/console/browser/api-reference-query.ts";

/**
 * The API reference (/docs) as a function of the OpenAPI document: the committed snapshot, which
 * test/worker/openapi-snapshot.test.ts holds equal to the document the Worker serves.
 */
const doc = snapshot as unknown as OpenApiDocument;
const schemaOf = (name: string) =>
  snapshot.components.schemas[name as keyof typeof snapshot.components.schemas] as Schema;
const html = renderApiReference(doc);
const METHODS = ["get", "post", "put", "patch", "delete", "head", "options", "trace"];

/** The operations of a document, counted from its JSON (not from the renderer's own grouping). */
const operationsOf = (d: OpenApiDocument) =>
  Object.entries(d.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((method) => ({ method, path })),
  );

/** One operation's article, from its opening tag to the next article or section end. */
function article(id: string): string {
  const start = html.indexOf(`<article class="op" id="${id}"`);
  expect(start, `no article #${id}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf("</article>", start));
}

/** The part of an operation's HTML between two of its headings (or its end). */
const between = (text: string, from: string, to: string | null) => {
  const start = text.indexOf(from);
  expect(start, `no ${from}`).toBeGreaterThan(-1);
  const end = to ? text.indexOf(to, start) : text.length;
  return text.slice(start, end === -1 ? text.length : end);
};

const fieldNames = (part: string) =>
  [...part.matchAll(/<code class="name">([^<]+)<\/code>/g)].map((m) => m[1]);

/** What the console's CSP (script-src 'self'; style-src 'self') would refuse in a page. */
function inlineCode(page: string): string[] {
  return [
    ...[...page.matchAll(/<script(?![^>]*\ssrc=)[^>]*>/gi)].map((m) => `inline script ${m[0]}`),
    ...[...page.matchAll(/<style\b[^>]*>/gi)].map((m) => `inline style element ${m[0]}`),
    ...[...page.matchAll(/<[a-z][^>]*\sstyle="[^"]*"/gi)].map((m) => `style attribute ${m[0].slice(0, 60)}`),
    ...[...page.matchAll(/<[a-z][^>]*\son[a-z]+="[^"]*"/gi)].map((m) => `event handler ${m[0].slice(0, 60)}`),
    ...[...page.matchAll(/(href|src)="javascript:[^"]*"/gi)].map((m) => `javascript: URL ${m[0]}`),
  ];
}

describe("the API reference rendered from the OpenAPI document", () => {
  it("renders every operation of the document, each once, with its method and path", () => {
    const ops = operationsOf(doc);
    // Counted here from the document itself, not through the renderer's own walk.
    const counted = Object.values(doc.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
      Object.keys(item).filter((k) => ["get", "put", "post", "delete", "patch"].includes(k)),
    ).length;
    expect(counted).toBeGreaterThan(40);
    expect(ops.length).toBe(counted);
    const articles = [...html.matchAll(/<article class="op" id="([^"]+)"/g)].map((m) => m[1]);
    expect(articles).toHaveLength(ops.length);
    expect(new Set(articles).size).toBe(ops.length);
    for (const { method, path } of ops) {
      const id = `${method} ${path}`
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "");
      const text = article(id);
      expect(text).toContain(`<span class="method m-${method}">${method.toUpperCase()}</span>`);
      // The path is drawn with break opportunities after its slashes; without them it is the path.
      expect(text.replace(/<wbr\/?>/g, "")).toContain(`<code class="path">${path}</code>`);
      // The contents link to it.
      expect(html).toContain(`href="#${id}"`);
    }
    expect(html).toContain(`${counted} operations, rendered from`);
  });

  it("shows the catalog entry create body's fields, $ref resolved, with their constraints", () => {
    const op = article("post-v1-admin-catalog-entries");
    expect(op).toContain("Bearer: an <code>admin</code> key");
    const body = between(op, "Request body", "<h4>Responses</h4>");
    const entry = schemaOf("CatalogEntry");
    // Every field of the CatalogEntry the body references, required ones marked so.
    const names = fieldNames(body);
    for (const field of Object.keys(entry.properties ?? {})) expect(names).toContain(field);
    expect(entry.required).toEqual(expect.arrayContaining(["name", "description"]));
    expect(body).toMatch(/<code class="name">name<\/code>.*?<span class="req">required<\/span>/s);
    expect(body).toContain("pattern <code>^[a-z][a-z0-9_-]{0,39}\\.[a-z][a-z0-9_-]{0,63}$</code>");
    expect(body).toContain('<span class="fact">1–2000 characters</span>');
    // A nested $ref (output: OutputLabel) drawn as its own fields, not only named.
    expect(body).toContain("Fields of OutputLabel");
    expect(names).toEqual(expect.arrayContaining(["confidentiality", "integrity"]));
    // Its If-Match header parameter.
    const params = between(op, "<h4>Parameters</h4>", "Request body");
    expect(params).toContain('<code class="name">if-match</code>');
    expect(params).toContain("in header");
  });

  it("shows each response with its schema, the errors in the error shape with its closed codes", () => {
    const op = article("post-v1-admin-catalog-entries");
    const responses = between(op, "<h4>Responses</h4>", null);
    for (const status of Object.keys(snapshot.paths["/v1/admin/catalog/entries"].post.responses)) {
      expect(responses).toContain(`>${status}</span>`);
    }
    expect(responses).toContain(
      '<a class="type ref" href="#schema-CatalogEntryWritten">CatalogEntryWritten</a>',
    );
    const errors = between(responses, "error-shape", "</details>");
    expect(errors).toContain("Error shape (400, 401, 403, 409, 412, 413)");
    expect(fieldNames(errors)).toEqual(["error", "code", "message", "details"]);
    const codes = schemaOf("ErrorCode").enum as string[];
    expect(codes.length).toBeGreaterThan(30);
    expect(errors).toContain(`one of ${codes.length}:`);
    for (const code of codes) expect(errors).toContain(`<code class="value">${code}</code>`);
  });

  it("names the credential each operation takes", () => {
    expect(article("get-healthz")).toContain("none (no credential)");
    expect(article("post-v1-operator-tenants")).toContain("operator secret");
    expect(article("post-v1-apps")).toContain("Bearer: a <code>developer</code> key");
    expect(article("post-v1-sessions")).toContain("or a user token");
  });

  it("holds nothing the console's CSP would refuse: no inline script or style, no handler", () => {
    expect(inlineCode(html)).toEqual([]);
    expect(html).toContain('<script src="/console/static/console.js" defer=""></script>');
    expect(html).toContain('<link rel="stylesheet" href="/console/static/api-reference.css"/>');
    // Control: the same check finds each kind of inline code in a page that has it.
    const tainted = html.replace(
      "</body>",
      '<script>alert(1)</script><style>p{}</style><p style="x" onclick="y"><a href="javascript:z">z</a></body>',
    );
    expect(inlineCode(tainted)).toHaveLength(5);
  });

  it("escapes the document's text and stops at a schema that contains itself", () => {
    const hostile: OpenApiDocument = {
      openapi: "3.1.0",
      info: { title: "T", version: "1" },
      paths: {
        "/x": {
          post: {
            summary: "<script>alert(1)</script>",
            requestBody: {
              content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } },
            },
            responses: { "200": { description: "ok" } },
          },
        },
      },
      components: {
        schemas: {
          Node: {
            type: "object",
            properties: {
              name: { type: "string", description: '"><img src=x onerror=alert(2)>' },
              children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
            },
          },
        },
      },
    };
    const page = renderApiReference(hostile);
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page).not.toContain("<img");
    expect(inlineCode(page)).toEqual([]);
    // The recursion drawn once, then linked: Node's children name Node without drawing it again.
    const op = between(page, '<article class="op"', "</article>");
    expect(fieldNames(op)).toEqual(["name", "children"]);
    expect(op).toContain('array of <a class="type ref" href="#schema-Node">Node</a>');
  });

  it("filters operations by every word of the query", () => {
    const text = "post /v1/admin/catalog/entries admin add an entry (a new catalog version)";
    expect(matchesQuery(text, "")).toBe(true);
    expect(matchesQuery(text, "POST catalog")).toBe(true);
    expect(matchesQuery(text, "catalog delete")).toBe(false);
  });
});
