import { Layout } from "../layout.tsx";

/** A developer's apps: versions, review state, the signature scheme and secret rotation. */
export function DeveloperPage() {
  return (
    <Layout title="Developer" page="developer" needs="developer">
      <section aria-labelledby="scheme-title">
        <h2 id="scheme-title">How Lattice signs calls to your app</h2>
        <p>
          Each call carries an HMAC-SHA256 signature under your app's signing secret (docs/API.md, "Calls to
          apps"). Rotating returns a new secret once; the old one stays valid for 24 hours unless you rotate
          immediately.
        </p>
      </section>
      <form id="app-form">
        <label for="app-id">App id</label>
        <input id="app-id" name="appId" type="text" required pattern="app_[0-9a-f]+" />
        <button type="submit">Show</button>
      </form>
      <div id="app"></div>
    </Layout>
  );
}
