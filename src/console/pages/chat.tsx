import { Layout } from "../layout.tsx";

/** The scripted demo model's five queries (src/llm/demo-script.ts), offered as one-click examples. */
const EXAMPLES = [
  "Who is my landlord?",
  "Compare rides from Home to Airport",
  "Email the total of this month's invoices to my accountant",
  "Search my notes for groceries",
  "Pay the plumber's bill",
];

/** Chat: the session's turns, each followed live from the event stream, answers with their marks. */
export function ChatPage(props: { sessionId?: string }) {
  return (
    <Layout title="Chat" page="chat" needs="user" data={props.sessionId ? { session: props.sessionId } : {}}>
      <form id="ask-form">
        <label for="question">Your question</label>
        <textarea id="question" name="question" rows={3} required maxlength={8000}></textarea>
        <button type="submit">Ask</button>
      </form>
      <section aria-labelledby="examples-title">
        <h2 id="examples-title">Examples</h2>
        <ul class="examples">
          {EXAMPLES.map((q) => (
            <li>
              <button type="button" class="example" data-question={q}>
                {q}
              </button>
            </li>
          ))}
        </ul>
      </section>
      <div class="columns">
        <section aria-labelledby="answer-title">
          <h2 id="answer-title">Conversation</h2>
          {/* The session's turns, oldest first: a new question is added below the earlier ones. */}
          <div id="query"></div>
        </section>
        <section aria-labelledby="events-title">
          <h2 id="events-title">What Lattice is doing</h2>
          <ol id="events" aria-live="polite"></ol>
        </section>
      </div>
    </Layout>
  );
}
