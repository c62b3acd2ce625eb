import { Layout } from "../layout.tsx";

/** One consent, answerable here: the page a chat frontend links to (see docs/API.md, "Console"). */
export function ConsentPage(props: { sessionId: string; consentId: string }) {
  return (
    <Layout
      title="Consent"
      page="consent"
      needs="user"
      data={{ session: props.sessionId, consent: props.consentId }}
    >
      <section aria-labelledby="outcome-title">
        <h2 id="outcome-title">Your request</h2>
        <div id="query"></div>
      </section>
      <section aria-labelledby="asked-title">
        <h2 id="asked-title">What is asked</h2>
        <div id="consent"></div>
      </section>
    </Layout>
  );
}
