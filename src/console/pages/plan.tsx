import { Layout } from "../layout.tsx";

/** The admin view of a query: its answer with labels, the verified plan, step by step with labels and the rule each flow met, beside the runtime trace. */
export function PlanPage(props: { sessionId: string; queryId: string }) {
  return (
    <Layout title="Plan" page="plan" needs="user" data={{ session: props.sessionId, query: props.queryId }}>
      <p id="plan-query"></p>
      {/* The admin view of the answer: each value's source and label in words (the chat shows sources only). */}
      <section aria-labelledby="plan-answer-title">
        <h2 id="plan-answer-title">Answer, with labels</h2>
        <div id="plan-answer"></div>
      </section>
      <div class="columns">
        <section aria-labelledby="steps-title">
          <h2 id="steps-title">Verified plan</h2>
          <ol id="steps"></ol>
        </section>
        <section aria-labelledby="trace-title">
          <h2 id="trace-title">Runtime trace</h2>
          <ol id="trace"></ol>
        </section>
      </div>
    </Layout>
  );
}
