/**
 * A validation error's field path (`body.tools["contacts.list"].output.integrity`) found in the
 * policy's JSON text: the path parsed (bracket-quoted keys, indices) and the text read by a small
 * JSON tokenizer that records where each path starts, so a key with a dot in it, or a name that also
 * appears earlier, still lands on the right field.
 */
export const SEP = "\u0000";

/** A field path as its segments (strings; indices as their digits), the "body" prefix dropped. */
export function pathSegments(field: string): string[] {
  let rest = field.replace(/^body/, "");
  if (rest && rest[0] !== "." && rest[0] !== "[") rest = `.${rest}`;
  const out: string[] = [];
  const re = /\.([^.[]+)|\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]/y;
  while (re.lastIndex < rest.length) {
    const m = re.exec(rest);
    if (!m) break;
    out.push(m[1] ?? (m[2] !== undefined ? String(JSON.parse(`"${m[2]}"`) as unknown) : m[3]!));
  }
  return out;
}

/**
 * Every path in a JSON text (segments joined by SEP) -> [start, end]: an object member's key (with
 * its quotes), an array element's value. Text that is not JSON yields what was read before the fault.
 */
export function jsonPaths(text: string): Record<string, [number, number]> {
  const at: Record<string, [number, number]> = {};
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = () => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return { start, end: i, value: String(JSON.parse(text.slice(start, i)) as unknown) };
  };
  const value = (path: string[]): void => {
    ws();
    if (text[i] === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        const k = str();
        const p = [...path, k.value];
        at[p.join(SEP)] = [k.start, k.end];
        ws();
        i++; // the colon
        value(p);
        ws();
        if (text[i++] !== ",") return;
      }
    } else if (text[i] === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        ws();
        const q = [...path, String(n)];
        const start = i;
        value(q);
        at[q.join(SEP)] = [start, i];
        ws();
        if (text[i++] !== ",") return;
      }
    } else if (text[i] === '"') str();
    else while (i < text.length && /[^\s,\]}]/.test(text[i]!)) i++;
  };
  try {
    value([]);
  } catch {
    // Not JSON past here: the paths read so far stand.
  }
  return at;
}

/** The span of the field an error names, or of its nearest enclosing field that is in the text. */
export function spanOf(text: string, field: string): [number, number] | null {
  const at = jsonPaths(text);
  const segs = pathSegments(field);
  for (let n = segs.length; n > 0; n--) {
    const span = at[segs.slice(0, n).join(SEP)];
    if (span) return span;
  }
  return null;
}
