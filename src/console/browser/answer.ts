/**
 * An answer's value as a person reads it, decided without the DOM: text as text, an object as
 * key/value lines, a list of objects as a table, a list of plain values as a list. A value Lattice
 * withheld ({withheld: true, label}) reads "withheld (<level>)", never as the marker's JSON.
 */
export type Answer =
  | { kind: "text"; text: string }
  | { kind: "fields"; rows: Array<{ key: string; text: string }> }
  | { kind: "table"; columns: string[]; rows: string[][] }
  | { kind: "list"; items: string[] };

type Plain = Record<string, unknown>;

const isPlain = (v: unknown): v is Plain => typeof v === "object" && v !== null && !Array.isArray(v);
const isWithheld = (v: unknown): v is { withheld: true; label?: unknown } =>
  isPlain(v) && v.withheld === true;

function level(label: unknown): string {
  return isPlain(label) ? String(label.confidentiality) : String(label);
}

/** One value as a line of text: a scalar as itself, a nested value as compact JSON (withheld parts named). */
export function valueText(v: unknown): string {
  if (isWithheld(v)) return `withheld (${level(v.label)})`;
  if (typeof v === "string") return v;
  if (v === undefined) return "";
  const MARK = "\u0000withheld:";
  return JSON.stringify(v, (_k, x: unknown) =>
    isWithheld(x) ? `${MARK}${level(x.label)}\u0000` : x,
  ).replace(/"\\u0000withheld:([^"\\]*)\\u0000"/g, "withheld ($1)");
}

function tableOf(records: Plain[]): { columns: string[]; rows: string[][] } {
  const columns: string[] = [];
  for (const row of records) for (const k of Object.keys(row)) if (!columns.includes(k)) columns.push(k);
  return {
    columns,
    rows: records.map((row) => columns.map((c) => (Object.hasOwn(row, c) ? valueText(row[c]) : ""))),
  };
}

export function answerShape(value: unknown): Answer {
  if (Array.isArray(value)) {
    if (value.length && value.every((v) => isPlain(v) && !isWithheld(v))) {
      return { kind: "table", ...tableOf(value as Plain[]) };
    }
    if (!value.length) return { kind: "text", text: "(nothing)" };
    return { kind: "list", items: value.map(valueText) };
  }
  if (isPlain(value) && !isWithheld(value)) {
    const keys = Object.keys(value);
    if (!keys.length) return { kind: "text", text: "(nothing)" };
    // Records keyed by name (quotes per app, rows per id) read as a table with the name first.
    const records = Object.values(value);
    if (records.every((v) => isPlain(v) && !isWithheld(v) && Object.keys(v).length)) {
      const table = tableOf(records as Plain[]);
      return {
        kind: "table",
        columns: ["Item", ...table.columns],
        rows: table.rows.map((row, i) => [keys[i]!, ...row]),
      };
    }
    return { kind: "fields", rows: keys.map((key) => ({ key, text: valueText(value[key]) })) };
  }
  return { kind: "text", text: value === null ? "(nothing)" : valueText(value) };
}

/** The same as pretty JSON text (strings as they are), for saved data shown whole. */
export function prettyText(v: unknown): string {
  if (isWithheld(v)) return `withheld (${level(v.label)})`;
  if (typeof v === "string") return v;
  const MARK = "\u0000withheld:";
  return JSON.stringify(
    v,
    (_k, x: unknown) => (isWithheld(x) ? `${MARK}${level(x.label)}\u0000` : x),
    2,
  ).replace(/"\\u0000withheld:([^"\\]*)\\u0000"/g, "withheld ($1)");
}
