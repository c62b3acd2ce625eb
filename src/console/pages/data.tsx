import { Layout } from "../layout.tsx";

/** My data: the user's saved artifacts (values within the display policy), standing grants and personal tokens. */
export function DataPage() {
  return (
    <Layout title="My data" page="data" needs="user">
      <section aria-labelledby="artifacts-title">
        <h2 id="artifacts-title">Saved data</h2>
        <div id="artifacts"></div>
      </section>
      <section aria-labelledby="grants-title">
        <h2 id="grants-title">Standing permissions</h2>
        <div id="grants"></div>
      </section>
      <section aria-labelledby="tokens-title">
        <h2 id="tokens-title">Personal tokens</h2>
        <p class="hint">
          Some apps take a token of yours, sent only to that app's server. Once set it is never shown again,
          here or anywhere; replace or remove it at any time.
        </p>
        <div id="personal-tokens"></div>
      </section>
    </Layout>
  );
}
