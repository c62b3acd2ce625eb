import type { Child } from "hono/jsx";
import {
  factsOf,
  isError,
  mergeAllOf,
  type OpenApiDocument,
  type Operation,
  type OperationEntry,
  operationsByTag,
  type Parameter,
  refName,
  resolve,
  resolveParameter,
  type Schema,
  typesOf,
} from "./openapi.ts";

/**
 * The API reference (/docs): every operation of the OpenAPI document with its key, parameters,
 * request body and responses, schemas resolved into nested field lists. Server-rendered with no
 * inline script or style, so the console's CSP holds; the one served script adds the filter.
 */
export function renderApiReference(doc: OpenApiDocument): string {
  const html = (<ApiReference doc={doc} />).toString();
  // Every component here is synchronous, so hono/jsx renders to a string at once.
  if (typeof html !== "string") throw new Error("the API reference rendered asynchronously");
  return `<!doctype html>${html}`;
}

/** Which credential a tag's bearer routes take, in Lattice's words (docs/API.md, "Conventions"). */
const KEY_OF_TAG: Record<string, string> = {
  admin: "an `admin` key (`lk.<tenant>.<secret>`)",
  developer: "a `developer` key (`lk.<tenant>.<secret>`)",
  frontend: "a `frontend` key (server side) or a user token (`lu.…`: a browser, its one user)",
  "chat frontends": "a `frontend` key (server side) or a user token (`lu.…`: a browser, its one user)",
};

const HEADINGS: Record<string, string> = {
  meta: "Meta",
  operator: "Operator",
  admin: "Admin",
  developer: "Developer",
  frontend: "Frontend",
  users: "Users",
  "chat frontends": "Chat frontends",
};

const heading = (tag: string) => HEADINGS[tag] ?? tag;

/** How deep nested schemas are drawn inline; below that a field links to its schema. */
const MAX_DEPTH = 8;

function ApiReference({ doc }: { doc: OpenApiDocument }) {
  const groups = operationsByTag(doc);
  const count = groups.reduce((n, g) => n + g.operations.length, 0);
  // Alphabetical: the section is looked things up in, by the names fields link with.
  const schemas = Object.entries(doc.components?.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${doc.info.title} reference`}</title>
        <link rel="stylesheet" href="/console/static/api-reference.css" />
        <script src="/console/static/console.js" defer></script>
      </head>
      <body data-page="docs">
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <p class="brand">
            <a href="#main">{doc.info.title}</a> <span class="version">v{doc.info.version}</span>
          </p>
          <ul class="links">
            <li>
              <a href="/openapi.json">openapi.json</a>
            </li>
            <li>
              <a href="/console">Console</a>
            </li>
          </ul>
        </header>
        <div class="frame">
          <nav class="toc" aria-label="Operations">
            <div class="filter" hidden>
              <label for="filter">Filter operations</label>
              <input id="filter" type="search" placeholder="path, method, word…" autocomplete="off" />
              <p id="filter-count" class="hint" role="status" aria-live="polite"></p>
            </div>
            <ol class="toc-tags">
              {groups.map((g) => (
                <li data-group={g.anchor}>
                  <a class="toc-tag" href={`#${g.anchor}`}>
                    {heading(g.tag)}
                  </a>
                  <ol class="toc-ops">
                    {g.operations.map((o) => (
                      <li data-op={o.anchor}>
                        <a href={`#${o.anchor}`}>
                          <Method method={o.method} /> <span class="toc-path">{breakable(o.path)}</span>
                        </a>
                      </li>
                    ))}
                  </ol>
                </li>
              ))}
              <li>
                <a class="toc-tag" href="#schemas">
                  Schemas
                </a>
              </li>
            </ol>
          </nav>
          <main id="main" tabindex={-1}>
            <h1>{doc.info.title} reference</h1>
            {doc.info.description && <p class="lead">{doc.info.description}</p>}
            <Intro doc={doc} count={count} />
            {groups.map((g) => (
              <section class="tag" id={g.anchor} data-group={g.anchor} aria-labelledby={`${g.anchor}-title`}>
                <h2 id={`${g.anchor}-title`}>{heading(g.tag)}</h2>
                {g.description && <p>{g.description}</p>}
                {g.operations.map((o) => (
                  <OperationView doc={doc} entry={o} />
                ))}
              </section>
            ))}
            <section id="schemas" aria-labelledby="schemas-title">
              <h2 id="schemas-title">Schemas</h2>
              <p>Every named schema of the document; fields above link here.</p>
              {schemas.map(([name, schema]) => (
                <section class="schema-def" id={`schema-${name}`} aria-label={name}>
                  <h3>
                    <code>{name}</code> <TypeLabel doc={doc} schema={schema} />
                  </h3>
                  {(factsOf(schema).length > 0 || schema.pattern) && (
                    <p class="constraints">
                      <Facts schema={schema} />
                    </p>
                  )}
                  <ValuesAndWords schema={schema} />
                  <SchemaBlock doc={doc} schema={schema} stack={[name]} depth={0} linked />
                </section>
              ))}
            </section>
          </main>
        </div>
      </body>
    </html>
  );
}

function Intro({ doc, count }: { doc: OpenApiDocument; count: number }) {
  const schemes = Object.entries(doc.components?.securitySchemes ?? {});
  return (
    <section class="intro" aria-label="Conventions">
      <p>
        {count} operations, rendered from <a href="/openapi.json">/openapi.json</a> (OpenAPI {doc.openapi}),
        the same schemas that validate every request. JSON in and out; request bodies are strict (an unknown
        field is a 400).
      </p>
      <dl class="facts">
        <dt>Authentication</dt>
        <dd>
          <code>Authorization: Bearer &lt;credential&gt;</code>
          <ul class="plain">
            {schemes.map(([name, s]) => (
              <li>
                <code>{name}</code>: <Words text={s.description ?? `${s.type} ${s.scheme ?? ""}`} />
              </li>
            ))}
          </ul>
        </dd>
        <dt>Errors</dt>
        <dd>
          Every error has one shape, <code>{'{"error": {"code", "message", "details"?}}'}</code>, its{" "}
          <code>code</code> one of a closed list: see <a href="#schema-Error">Error</a> and{" "}
          <a href="#schema-ErrorCode">ErrorCode</a>.
        </dd>
      </dl>
    </section>
  );
}

function Method({ method }: { method: string }) {
  return <span class={`method m-${method}`}>{method.toUpperCase()}</span>;
}

function OperationView({ doc, entry }: { doc: OpenApiDocument; entry: OperationEntry }) {
  const { op } = entry;
  const params = (op.parameters ?? [])
    .map((p) => resolveParameter(doc, p))
    .filter((p): p is Parameter => !!p);
  const search = [entry.method, entry.path, entry.tag, op.summary ?? ""].join(" ").toLowerCase();
  return (
    <article class="op" id={entry.anchor} data-op={entry.anchor} data-search={search}>
      <h3 class="op-title">
        <Method method={entry.method} /> <code class="path">{breakable(entry.path)}</code>
      </h3>
      {op.summary && (
        <p class="summary">
          <Words text={op.summary} />
        </p>
      )}
      {op.description && (
        <p>
          <Words text={op.description} />
        </p>
      )}
      <p class="auth">
        <span class="label">Auth</span> <AuthWords doc={doc} op={op} tag={entry.tag} />
      </p>
      {params.length > 0 && (
        <>
          <h4>Parameters</h4>
          <ul class="fields">
            {params.map((p) => (
              <Field
                doc={doc}
                name={p.name}
                where={p.in}
                required={!!p.required}
                schema={{ ...(p.schema ?? {}), description: p.description ?? p.schema?.description }}
                stack={[]}
                depth={0}
              />
            ))}
          </ul>
        </>
      )}
      {op.requestBody && <RequestBody doc={doc} body={op.requestBody} />}
      <Responses doc={doc} op={op} />
    </article>
  );
}

function AuthWords({ doc, op, tag }: { doc: OpenApiDocument; op: Operation; tag: string }) {
  const names = (op.security ?? []).flatMap((req) => Object.keys(req));
  if (!names.length) return <span>none (no credential)</span>;
  return (
    <span>
      {names.map((name, i) => {
        const words =
          name === "bearer"
            ? (KEY_OF_TAG[tag] ?? doc.components?.securitySchemes?.[name]?.description)
            : doc.components?.securitySchemes?.[name]?.description;
        return (
          <>
            {i > 0 && " or "}
            Bearer: <Words text={words ?? name} />
          </>
        );
      })}
    </span>
  );
}

function RequestBody({ doc, body }: { doc: OpenApiDocument; body: NonNullable<Operation["requestBody"]> }) {
  return (
    <>
      <h4>
        Request body {body.required ? <span class="req">required</span> : <span class="opt">optional</span>}
      </h4>
      {body.description && <p>{body.description}</p>}
      {Object.entries(body.content ?? {}).map(([type, content]) => (
        <div class="body">
          <p class="media">
            <code>{type}</code>
            {content.schema && (
              <>
                {" "}
                <TypeLabel doc={doc} schema={content.schema} />
              </>
            )}
          </p>
          {content.schema && <SchemaBlock doc={doc} schema={content.schema} stack={[]} depth={0} />}
        </div>
      ))}
    </>
  );
}

/**
 * Each status with its description and schema; the schemas then drawn once each (an operation's
 * six error statuses share one error shape), answers open, the error shape folded.
 */
function Responses({ doc, op }: { doc: OpenApiDocument; op: Operation }) {
  const responses = Object.entries(op.responses ?? {});
  const shapes = new Map<string, { schema: Schema; statuses: string[]; media: string }>();
  for (const [status, r] of responses) {
    for (const [media, content] of Object.entries(r.content ?? {})) {
      if (!content.schema) continue;
      const key = `${media} ${JSON.stringify(content.schema)}`;
      const shape = shapes.get(key) ?? { schema: content.schema, statuses: [], media };
      shape.statuses.push(status);
      shapes.set(key, shape);
    }
  }
  return (
    <>
      <h4>Responses</h4>
      <ul class="responses">
        {responses.map(([status, r]) => (
          <li>
            <span class={`status s${status[0]}xx`}>{status}</span> <Words text={r.description ?? ""} />
            {Object.entries(r.content ?? {}).map(([media, c]) => (
              <span class="shape">
                {" "}
                {media !== "application/json" && <code>{media}</code>}{" "}
                {c.schema && <TypeLabel doc={doc} schema={c.schema} />}
              </span>
            ))}
          </li>
        ))}
      </ul>
      {[...shapes.values()].map((s) => {
        const errors = s.statuses.every(isError);
        return (
          <details class={errors ? "shape-block error-shape" : "shape-block"} open={!errors}>
            <summary>
              {errors ? "Error shape" : "Response"} ({s.statuses.join(", ")}
              {s.media !== "application/json" ? `, ${s.media}` : ""}):{" "}
              <TypeLabel doc={doc} schema={s.schema} link={false} />
            </summary>
            <SchemaBlock doc={doc} schema={s.schema} stack={[]} depth={0} />
          </details>
        );
      })}
    </>
  );
}

/** A schema's one-line type: `string or null`, `array of CatalogEntry`, `map of string → string`. */
function TypeLabel({ doc, schema, link = true }: { doc: OpenApiDocument; schema: Schema; link?: boolean }) {
  const name = refName(schema);
  if (name) {
    return link ? (
      <a class="type ref" href={`#schema-${name}`}>
        {name}
      </a>
    ) : (
      <span class="type ref">{name}</span>
    );
  }
  const s = mergeAllOf(doc, schema);
  if (s.const !== undefined) return <span class="type">const {JSON.stringify(s.const)}</span>;
  if (s.oneOf) return <span class="type">one of {s.oneOf.length}</span>;
  if (s.anyOf) return <AnyOfLabel doc={doc} options={s.anyOf} link={link} />;
  if (s.allOf) return <span class="type">all of {s.allOf.length}</span>;
  const types = typesOf(s);
  if (!types.length) return <span class="type">any</span>;
  return (
    <span class="type">
      {types.map((t, i) => (
        <>
          {i > 0 && " or "}
          {t === "array" && s.items ? (
            <>
              array of <TypeLabel doc={doc} schema={s.items} link={link} />
            </>
          ) : t === "object" && !s.properties && typeof s.additionalProperties === "object" ? (
            <>
              map of string → <TypeLabel doc={doc} schema={s.additionalProperties} link={link} />
            </>
          ) : (
            t
          )}
        </>
      ))}
    </span>
  );
}

/** `anyOf` of simple types reads as "A or B"; of objects, as "any of N" with the options below. */
function AnyOfLabel({ doc, options, link }: { doc: OpenApiDocument; options: Schema[]; link: boolean }) {
  return (
    <span class="type">
      {options.map((o, i) => (
        <>
          {i > 0 && " or "}
          <TypeLabel doc={doc} schema={o} link={link} />
        </>
      ))}
    </span>
  );
}

/** What a schema says beyond its type: constraints, enum values, default, description. */
function Facts({ schema }: { schema: Schema }) {
  const plainItems = schema.items && !schema.items.$ref ? schema.items : undefined;
  const pattern = schema.pattern ?? plainItems?.pattern;
  return (
    <>
      {factsOf(schema).map((f) => (
        <span class="fact">{f}</span>
      ))}
      {plainItems && factsOf(plainItems).map((f) => <span class="fact">each: {f}</span>)}
      {pattern && (
        <span class="fact">
          pattern <code>{pattern}</code>
        </span>
      )}
      {schema.default !== undefined && (
        <span class="fact">
          default <code>{JSON.stringify(schema.default)}</code>
        </span>
      )}
    </>
  );
}

/** A schema's closed values (an enum, an array of them) and its description, below its head line. */
function ValuesAndWords({ schema }: { schema: Schema }) {
  const values = schema.enum ?? (schema.items && !schema.items.$ref ? schema.items.enum : undefined);
  return (
    <>
      {values && values.length > 0 && (
        <p class="enum">
          <span class="label">{values.length === 1 ? "always" : `one of ${values.length}:`}</span>{" "}
          {values.map((v) => (
            <code class="value">{typeof v === "string" ? v : JSON.stringify(v)}</code>
          ))}
        </p>
      )}
      {schema.description && (
        <p class="desc">
          <Words text={schema.description} />
        </p>
      )}
    </>
  );
}

/**
 * What is inside a schema, as a nested list: an object's fields, an array's item, a map's value, a
 * union's options. A `$ref` already being drawn (a recursive schema) or past MAX_DEPTH is only
 * named: its type label links to its definition.
 */
function SchemaBlock(props: {
  doc: OpenApiDocument;
  schema: Schema;
  stack: string[];
  depth: number;
  /** In the Schemas section a nested `$ref` is only linked: its definition is on the same page. */
  linked?: boolean;
}) {
  const { doc, depth, linked } = props;
  const name = refName(props.schema);
  if (name && (props.stack.includes(name) || depth >= MAX_DEPTH || (linked && depth > 0))) return null;
  const stack = name ? [...props.stack, name] : props.stack;
  const s = mergeAllOf(doc, resolve(doc, props.schema));
  const next = depth + 1;
  if (s.properties) {
    const required = new Set(s.required ?? []);
    const fields = Object.entries(s.properties);
    if (!fields.length) return <p class="hint">An empty object.</p>;
    return (
      <ul class="fields">
        {fields.map(([field, fs]) => (
          <Field
            doc={doc}
            name={field}
            required={required.has(field)}
            schema={fs}
            stack={stack}
            depth={next}
            linked={linked}
          />
        ))}
      </ul>
    );
  }
  const options = s.oneOf ?? s.anyOf ?? s.allOf;
  if (options) {
    // "string or null" says all there is; only options with insides get a list.
    const deep = options.filter((o) => {
      const r = mergeAllOf(doc, resolve(doc, o));
      return r.properties || r.oneOf || r.anyOf || (r.items && hasInside(doc, r.items));
    });
    if (!deep.length) return null;
    return (
      <ol class="options">
        {options.map((o) => (
          <li>
            <OptionHead doc={doc} schema={o} />
            <SchemaBlock doc={doc} schema={o} stack={stack} depth={next} linked={linked} />
          </li>
        ))}
      </ol>
    );
  }
  if (s.items && hasInside(doc, s.items)) {
    return (
      <div class="inside">
        <p class="inside-label">Each item:</p>
        <SchemaBlock doc={doc} schema={s.items} stack={stack} depth={next} linked={linked} />
      </div>
    );
  }
  if (typeof s.additionalProperties === "object" && hasInside(doc, s.additionalProperties)) {
    return (
      <div class="inside">
        <p class="inside-label">Each value:</p>
        <SchemaBlock doc={doc} schema={s.additionalProperties} stack={stack} depth={next} linked={linked} />
      </div>
    );
  }
  return null;
}

function hasInside(doc: OpenApiDocument, schema: Schema): boolean {
  const s = mergeAllOf(doc, resolve(doc, schema));
  return !!(s.properties || s.oneOf || s.anyOf || s.allOf || (s.items && hasInside(doc, s.items)));
}

/** One option of a union: its type, and the value of its tag field when it has one (`type: "bearer"`). */
function OptionHead({ doc, schema }: { doc: OpenApiDocument; schema: Schema }) {
  const s = mergeAllOf(doc, resolve(doc, schema));
  const tag = Object.entries(s.properties ?? {}).find(
    ([, p]) => p.enum?.length === 1 || p.const !== undefined,
  );
  return (
    <p class="option-head">
      <TypeLabel doc={doc} schema={schema} />
      {tag && (
        <>
          {" "}
          with <code>{`${tag[0]}: ${JSON.stringify(tag[1].const ?? tag[1].enum?.[0])}`}</code>
        </>
      )}
      {!refName(schema) && s.description && <span class="desc"> {s.description}</span>}
    </p>
  );
}

function Field(props: {
  doc: OpenApiDocument;
  name: string;
  where?: string;
  required: boolean;
  schema: Schema;
  stack: string[];
  depth: number;
  linked?: boolean;
}): Child {
  const { doc, schema } = props;
  // Facts of the field itself, or of the schema it names when it is only a reference.
  const shown = refName(schema) ? resolve(doc, schema) : mergeAllOf(doc, schema);
  return (
    <li class="field">
      <p class="field-head">
        <code class="name">{props.name}</code> <TypeLabel doc={doc} schema={schema} />
        {props.where && <span class="where">in {props.where}</span>}
        {props.required ? <span class="req">required</span> : <span class="opt">optional</span>}
        <Facts schema={shown} />
      </p>
      <ValuesAndWords schema={shown} />
      <Nested {...props} />
    </li>
  );
}

/**
 * A field's insides. A named schema nested in a body is folded when it is big (an App's manifest),
 * so an operation reads at a glance and every field is still one click away, without script.
 */
function Nested(props: {
  doc: OpenApiDocument;
  schema: Schema;
  stack: string[];
  depth: number;
  linked?: boolean;
}) {
  const { doc, schema } = props;
  // An array of a named schema shows the item's fields at once, not an "each item" level more.
  const each = !refName(schema) && schema.items && refName(schema.items) ? schema.items : null;
  const name = refName(each ?? schema);
  if (!name || props.linked || !hasInside(doc, schema)) return <SchemaBlock {...props} />;
  const inside = mergeAllOf(doc, resolve(doc, each ?? schema));
  const union = !!(inside.oneOf ?? inside.anyOf);
  const fields = Object.keys(inside.properties ?? {});
  return (
    <details class="nested" open={fields.length <= FOLD_OVER}>
      <summary>{`${union ? "Options" : "Fields"} of ${each ? "each " : ""}${name}`}</summary>
      <SchemaBlock {...props} schema={each ?? schema} />
    </details>
  );
}

/** Named schemas with more fields than this are folded where they are nested. */
const FOLD_OVER = 5;

/** A path that wraps after a slash, never inside a name (`/v1/admin/apps/<wbr>{appId}`). */
function breakable(path: string): Child {
  return path.split("/").map((part, i) =>
    i === 0 ? (
      part
    ) : (
      <>
        <wbr />/{part}
      </>
    ),
  );
}

/** Text with `backticks` shown as code, as the document's descriptions write it (and nothing else). */
function Words({ text }: { text: string }) {
  return <>{text.split("`").map((part, i) => (i % 2 ? <code>{part}</code> : part))}</>;
}
