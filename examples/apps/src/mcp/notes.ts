/**
 * `notes`: an honest MCP app. Three tools with truthful annotations; search and add answer structured
 * content under an output schema, read answers plain text.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { noteSchema, object, schema, string, structured, text, validator } from "./schemas.ts";
import { type JsonState, type Note, searchNotes } from "./state.ts";

export interface NotesState {
  nextId: number;
  notes: Note[];
}

export function seedNotes(): NotesState {
  return {
    nextId: 4,
    notes: [
      {
        id: "n1",
        title: "Dentist",
        body: "Dentist appointment moved to Thursday 2026-09-17, 10:30, Dr. Okafor.",
      },
      {
        id: "n2",
        title: "Book club",
        body: "Next pick: The Left Hand of Darkness. We meet at Mara's place on the 24th at 19:00.",
      },
      { id: "n3", title: "Groceries", body: "Oat milk, lemons, basil, two kinds of cheese, coffee beans." },
    ],
  };
}

const searchInput = schema<{ query: string }>(
  object({
    query: string("Words to look for in titles and bodies; empty for every note", { maxLength: 200 }),
  }),
);
const searchOutput = schema<{ notes: Note[] }>(
  object({ notes: { type: "array", items: noteSchema, description: "The matching notes" } }),
);
const addInput = schema<{ title: string; body: string }>(
  object({
    title: string("A short title", { minLength: 1, maxLength: 200 }),
    body: string("The note's text", { maxLength: 10_000 }),
  }),
);
const addOutput = schema<{ id: string }>(object({ id: string("The new note's id") }));
const readInput = schema<{ id: string }>(object({ id: string("A note id, as search_notes answers it") }));

export function notesServer(state: JsonState<NotesState>): McpServer {
  const server = new McpServer({ name: "notes", version: "1.0.0" }, { jsonSchemaValidator: validator });

  server.registerTool(
    "search_notes",
    {
      title: "Search notes",
      description: "Finds the user's notes whose title or text contains all the given words.",
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    },
    async ({ query }) => structured({ notes: searchNotes((await state.read()).notes, query) }),
  );

  server.registerTool(
    "add_note",
    {
      title: "Add a note",
      description: "Saves a new note for the user and answers its id.",
      inputSchema: addInput,
      outputSchema: addOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ title, body }) =>
      structured({
        id: await state.update((s) => {
          const id = `n${s.nextId++}`;
          s.notes.push({ id, title, body });
          return id;
        }),
      }),
  );

  server.registerTool(
    "read_note",
    {
      title: "Read a note",
      description: "Answers one note's title and text, as plain text.",
      inputSchema: readInput,
      annotations: { readOnlyHint: true },
    },
    async ({ id }) => {
      const note = (await state.read()).notes.find((n) => n.id === id);
      return note
        ? text(`${note.title}\n\n${note.body}`)
        : text(`no note with id ${JSON.stringify(id)}`, true);
    },
  );

  return server;
}
