/**
 * The user's cloud drive of AgentDojo v1's workspace suite (cloud_drive_client.py) as the app
 * `workdrive`: list, search and read files, create, append to, share and delete them. Files are
 * hers or shared with her by others. Seeded empty; the benchmark writes AgentDojo's environment in.
 *
 * As AgentDojo: ids are the largest id plus one, a file's size is its content's length, an unknown
 * id is an error. `shared_with` is a list of {email, permission} (AgentDojo's is a map), and a
 * content search that finds nothing answers an empty list (AgentDojo raises).
 */
import { AppError, arr, type DemoApp, int, obj, op, str } from "../../../../examples/apps/src/kit.ts";
import { nextIdOf } from "./apps-mail.ts";

export type Permission = "r" | "w" | "rw";
export interface WorkFile {
  id: string;
  filename: string;
  content: string;
  owner: string;
  /** ISO 8601, seconds. */
  last_modified: string;
  shared_with: Array<{ email: string; permission: Permission }>;
  size: number;
  file_type: "document" | "spreadsheet";
}
export interface WorkDriveState {
  account: string;
  files: WorkFile[];
}

const file = obj({
  id: str("File id"),
  filename: str("File name"),
  content: str("Content"),
  owner: str("Owner's e-mail address"),
  last_modified: str("Last modified, ISO 8601"),
  shared_with: arr(obj({ email: str("E-mail address"), permission: str("r, w or rw") }), "Shared with"),
  size: int("Size in characters"),
  file_type: str("document or spreadsheet"),
});
const files = obj({ files: arr(file) });
const fileId = obj({ file_id: str("File id") });

const byId = (st: WorkDriveState, id: string) => {
  const f = st.files.find((x) => x.id === id);
  if (!f) throw new AppError(404, "not_found", `File with ID '${id}' not found.`);
  return f;
};
const has = (text: string, q: string) => text.toLowerCase().includes(q.toLowerCase());
const stamp = (now: Date) => now.toISOString().slice(0, 19);

export const workdrive: DemoApp<WorkDriveState> = {
  name: "workdrive",
  version: "1.0.0",
  description: "Cloud drive: the user's files and those shared with her; find, read, write, share, delete.",
  seed: () => ({ account: "", files: [] }),
  ops: {
    list_files: op({
      description: "Every file in the drive.",
      request: obj({}),
      response: files,
      // Files shared with her are written by their owners, anyone: content has no integrity.
      output: { confidentiality: "confidential" },
      run: (st: WorkDriveState) => ({ files: st.files }),
    }),
    search_files: op({
      description: "Files whose content contains the query.",
      request: obj({ query: str("Words to find") }),
      response: files,
      output: { confidentiality: "confidential" },
      run: (st: WorkDriveState, a: { query: string }) => ({
        files: st.files.filter((f) => has(f.content, a.query)),
      }),
    }),
    search_files_by_filename: op({
      description: "Files whose name contains the given name.",
      request: obj({ filename: str("File name or part of one") }),
      response: files,
      output: { confidentiality: "confidential" },
      run: (st: WorkDriveState, a: { filename: string }) => ({
        files: st.files.filter((f) => has(f.filename, a.filename)),
      }),
    }),
    get_file_by_id: op({
      description: "The file with the given id.",
      request: fileId,
      response: file,
      output: { confidentiality: "confidential" },
      run: (st: WorkDriveState, a: { file_id: string }) => byId(st, a.file_id),
    }),
    create_file: op({
      description: "Create a new file, owned by the user and shared with no one.",
      request: obj({ filename: str("File name"), content: str("Content") }),
      response: file,
      // A new file only she can see: she can delete it again.
      output: { confidentiality: "confidential" },
      run: (st: WorkDriveState, a: { filename: string; content: string }, ctx) => {
        const f: WorkFile = {
          id: nextIdOf(st.files),
          filename: a.filename,
          content: a.content,
          owner: st.account,
          last_modified: stamp(ctx.now),
          shared_with: [],
          size: a.content.length,
          file_type: "document",
        };
        st.files.push(f);
        return f;
      },
    }),
    append_to_file: op({
      description: "Add content at the end of a file.",
      request: obj({ file_id: str("File id"), content: str("What to add") }),
      response: file,
      // An edit in her drive, not sent anywhere: it can be taken out again.
      output: { confidentiality: "confidential" },
      run: (st: WorkDriveState, a: { file_id: string; content: string }, ctx) => {
        const f = byId(st, a.file_id);
        f.content += a.content;
        f.size = f.content.length;
        f.last_modified = stamp(ctx.now);
        return f;
      },
    }),
    share_file: op({
      description: "Share a file with someone, by e-mail address, to read (r), write (w) or both (rw).",
      request: obj({
        file_id: str("File id"),
        email: str("E-mail address"),
        permission: { type: "string", enum: ["r", "w", "rw"], description: "r, w or rw" },
      }),
      response: file,
      // The file's content goes to the address: once read, it cannot be unshared.
      irreversible: true,
      destinations: ["email"],
      output: { confidentiality: "confidential" },
      run: (st: WorkDriveState, a: { file_id: string; email: string; permission: Permission }) => {
        const f = byId(st, a.file_id);
        f.shared_with = [
          ...f.shared_with.filter((s) => s.email !== a.email),
          { email: a.email, permission: a.permission },
        ];
        return f;
      },
    }),
    delete_file: op({
      description: "Delete the file with the given id.",
      request: fileId,
      response: file,
      // There is no trash in this drive: a deleted file is gone.
      irreversible: true,
      output: { confidentiality: "confidential" },
      run: (st: WorkDriveState, a: { file_id: string }) => {
        const f = byId(st, a.file_id);
        st.files = st.files.filter((x) => x !== f);
        return f;
      },
    }),
  },
};
