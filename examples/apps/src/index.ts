export default {
  fetch(request: Request): Response {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return Response.json({ ok: true });
    return Response.json({ error: { code: "not_found", message: "no such route" } }, { status: 404 });
  },
};
