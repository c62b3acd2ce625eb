import { Layout } from "../layout.tsx";

/** My data: the user's saved artifacts (values within the display policy) and standing grants. */
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
    </Layout>
  );
}
