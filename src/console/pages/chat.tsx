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
      <div class="columns">
        <section aria-labelledby="answer-title" class="conversation">
          <h2 id="answer-title">Conversation</h2>
          <section aria-labelledby="examples-title">
            <h3 id="examples-title">Examples</h3>
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
          {/* The session's turns, oldest first: a new question is added below the earlier ones. */}
          <div id="query"></div>
          {/* As in any chat: the transcript above, the input kept at the bottom of the window. */}
          <form id="ask-form" class="composer">
            <div class="composer-field">
              <label for="question">Your question</label>
              <textarea id="question" name="question" rows={2} required maxlength={8000}></textarea>
            </div>
            <button type="submit">Ask</button>
          </form>
        </section>
        <section aria-labelledby="events-title">
          <h2 id="events-title">What Lattice is doing</h2>
          <ol id="events" aria-live="polite"></ol>
        </section>
      </div>
    </Layout>
  );
}
