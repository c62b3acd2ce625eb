import { Layout } from "../layout.tsx";

/** A developer's apps: versions, review state, the signature scheme, secret rotation and try-it. */
export function DeveloperPage() {
  return (
    <Layout title="Developer" page="developer" needs="developer">
      <section aria-labelledby="scheme-title">
        <h2 id="scheme-title">How Lattice signs calls to your app</h2>
        <p>
          Every call carries <code>X-Lattice-Signature: t=&lt;unix seconds&gt;,v2=&lt;hex&gt;</code>, an
          HMAC-SHA256 under your app's signing secret (scheme v2) over <code>lattice-v2</code>, the time, the
          method, the URL path, the idempotency key, the call id and the raw body, joined by newlines
          (docs/API.md, "What apps receive"); refuse calls older than five minutes. Rotating returns a new
          secret once; for 24 hours Lattice signs with both (two v2 values), or only the new one if you rotate
          immediately.
        </p>
      </section>
      <section aria-labelledby="try-title">
        <h2 id="try-title">Try a functionality</h2>
        <p>
          Calls one functionality of your own pending or approved version exactly as a plan step would
          (signed, both schemas checked, egress, the tenant's timeout), as a synthetic user no real user can
          be, and shows the request sent and how the answer was judged. Nothing is remembered.
        </p>
        <div id="try"></div>
      </section>
      <section aria-labelledby="apps-title">
        <h2 id="apps-title">My apps</h2>
        <div id="apps"></div>
      </section>
    </Layout>
  );
}
