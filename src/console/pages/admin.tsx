import { Layout } from "../layout.tsx";

/** Review: pending app versions with their diff against the approved one, bindings and clearance. */
export function AdminAppsPage() {
  return (
    <Layout title="Admin: app review" page="admin-apps" needs="admin">
      <section aria-labelledby="pending-title">
        <h2 id="pending-title">Pending versions</h2>
        <div id="pending"></div>
      </section>
      <section aria-labelledby="unbound-title">
        <h2 id="unbound-title">Unbound functionalities of serving versions</h2>
        <div id="unbound"></div>
      </section>
      <section aria-labelledby="apps-title">
        <h2 id="apps-title">All apps</h2>
        <div id="apps"></div>
      </section>
    </Layout>
  );
}

/** The tenant's catalog: the functionalities planners see, in the admin's words. */
export function CatalogPage() {
  return (
    <Layout title="Catalog" page="catalog" needs="admin">
      <div id="catalog"></div>
    </Layout>
  );
}

/** The policy editor: the whole policy as JSON; a refusal's errors are shown at their field. */
export function PolicyPage() {
  return (
    <Layout title="Policy" page="policy" needs="admin">
      <form id="policy-form" novalidate>
        <label for="policy-text">Policy (JSON; fields left out take the secure defaults)</label>
        <textarea id="policy-text" rows={24} spellcheck={false} aria-describedby="policy-errors"></textarea>
        <div id="policy-errors" role="alert"></div>
        <button type="submit">Save policy</button>
      </form>
      <p id="policy-status" role="status"></p>
    </Layout>
  );
}

/** The audit log with filters by event type and time. */
export function AuditPage() {
  return (
    <Layout title="Audit log" page="audit" needs="admin">
      <form id="audit-form">
        <label for="audit-type">Event type contains</label>
        <input id="audit-type" name="type" type="search" />
        <label for="audit-since">Since (an ISO time, or an event's #)</label>
        <input id="audit-since" name="since" type="text" placeholder="2026-01-01T00:00:00Z" />
        <button type="submit">Filter</button>
      </form>
      <p id="audit-count"></p>
      <div id="audit"></div>
    </Layout>
  );
}
