/** The API reference's stylesheet (/console/static/api-reference.css: the CSP allows no inline style). */
export const API_REFERENCE_STYLES = `
:root { --fg: #1b1f24; --muted: #57606a; --accent: #0b57d0; --line: #d0d7de; --soft: #f6f8fa; --code: #eff2f5;
  --get: #0a6b3d; --post: #0b57d0; --put: #8a4b00; --patch: #6f42c1; --delete: #a4161a; }
* { box-sizing: border-box; }
html { scroll-padding-top: 4rem; }
body { margin: 0; font: 16px/1.55 system-ui, sans-serif; color: var(--fg); background: #fff; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
code { font: .9em/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; z-index: 3; }
.top { position: sticky; top: 0; z-index: 2; display: flex; align-items: center; gap: 1rem; padding: .6rem 1.25rem; background: #fff; border-bottom: 1px solid var(--line); }
.brand { margin: 0; font-weight: 700; } .brand a { color: var(--fg); text-decoration: none; }
.version { font-weight: 400; color: var(--muted); font-size: .9rem; }
.links { list-style: none; display: flex; gap: 1rem; margin: 0 0 0 auto; padding: 0; }
.frame { display: grid; grid-template-columns: 19rem minmax(0, 1fr); }
.toc { position: sticky; top: 3.1rem; align-self: start; height: calc(100vh - 3.1rem); overflow-y: auto; padding: 1rem .75rem 2rem 1.25rem; border-right: 1px solid var(--line); background: var(--soft); font-size: .9rem; }
.toc ol { list-style: none; margin: 0; padding: 0; }
.toc-tag { display: block; font-weight: 700; margin: .9rem 0 .25rem; color: var(--fg); text-decoration: none; }
.toc-ops a { display: flex; gap: .4rem; align-items: baseline; padding: .12rem .25rem; border-radius: 4px; color: var(--fg); text-decoration: none; }
.toc-ops a:hover { background: #e6ebf1; }
.toc-ops .method { flex: 0 0 3.4rem; }
.toc-path { font: .8rem/1.35 ui-monospace, monospace; }
.filter label { display: block; font-weight: 600; margin-bottom: .25rem; }
.filter input { width: 100%; font: inherit; padding: .35rem .5rem; border: 1px solid #6b7480; border-radius: 4px; }
.hint { color: var(--muted); margin: .25rem 0; font-size: .85rem; }
main { padding: 1.5rem 2rem 4rem; max-width: 62rem; min-width: 0; }
main:focus { outline: none; }
h1 { margin: 0 0 .5rem; font-size: 1.9rem; }
.lead { font-size: 1.1rem; color: var(--muted); margin-top: 0; }
h2 { font-size: 1.5rem; margin: 2.5rem 0 .5rem; padding-bottom: .3rem; border-bottom: 2px solid var(--line); }
h4 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1.1rem 0 .4rem; }
.intro { background: var(--soft); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
.intro p { margin-top: 0; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem; margin: 0; }
.facts dt { font-weight: 600; } .facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
ul.plain { margin: .25rem 0 0; padding-left: 1.1rem; }
.op { border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 1.25rem 0; scroll-margin-top: 4rem; }
.op-title { display: flex; flex-wrap: wrap; align-items: center; gap: .6rem; margin: 0; font-size: 1.05rem; }
.op-title .path { font-size: 1rem; font-weight: 600; overflow-wrap: anywhere; }
.summary { margin: .5rem 0; font-size: 1.02rem; }
.method { display: inline-block; min-width: 3.4rem; text-align: center; font: 700 .72rem/1.6 ui-monospace, monospace; color: #fff; border-radius: 4px; padding: 0 .35rem; background: var(--muted); }
.m-get { background: var(--get); } .m-post { background: var(--post); } .m-put { background: var(--put); }
.m-patch { background: var(--patch); } .m-delete { background: var(--delete); }
.auth { margin: .25rem 0; color: var(--muted); font-size: .92rem; }
.auth .label, .enum .label { font-weight: 600; color: var(--fg); margin-right: .25rem; }
.scheme { color: var(--muted); }
ul.fields { list-style: none; margin: 0; padding: 0; }
ul.fields ul.fields, .options, .inside { margin-left: .35rem; padding-left: .9rem; border-left: 2px solid var(--line); }
.field { padding: .45rem 0; border-top: 1px solid #eaeef2; }
ul.fields > .field:first-child { border-top: 0; }
.field-head { margin: 0; display: flex; flex-wrap: wrap; align-items: baseline; gap: .15rem .5rem; }
.name { font-weight: 700; color: #0d1117; }
.type { color: #6f42c1; font: .85rem ui-monospace, monospace; overflow-wrap: anywhere; }
a.type.ref, .type .ref { color: var(--accent); }
.where { font-size: .8rem; color: var(--muted); }
.req, .opt { font-size: .72rem; text-transform: uppercase; letter-spacing: .04em; border-radius: 3px; padding: 0 .3rem; }
.req { color: #a4161a; border: 1px solid #e5a3a5; } .opt { color: var(--muted); border: 1px solid var(--line); }
.constraints { margin: .2rem 0 0; display: flex; flex-wrap: wrap; gap: .3rem; }
.fact { font-size: .8rem; background: var(--code); border-radius: 3px; padding: 0 .35rem; color: #24292f; overflow-wrap: anywhere; }
.enum { margin: .25rem 0 0; font-size: .85rem; display: flex; flex-wrap: wrap; gap: .3rem; align-items: baseline; }
.enum .value { background: #e8f0fe; color: #0b3d91; border-radius: 3px; padding: 0 .3rem; }
.desc { margin: .2rem 0 0; color: #33393f; font-size: .93rem; }
.field-head + .desc { margin-top: .1rem; }
.options { list-style: none; margin-top: .35rem; }
.options > li { padding: .3rem 0; }
.option-head { margin: 0; font-size: .9rem; }
.inside-label { margin: .35rem 0 0; font-size: .85rem; color: var(--muted); }
.media { margin: 0 0 .25rem; }
.responses { list-style: none; padding: 0; margin: 0; }
.responses li { padding: .2rem 0; }
.status { display: inline-block; min-width: 2.6rem; text-align: center; font: 700 .8rem/1.5 ui-monospace, monospace; border-radius: 4px; padding: 0 .3rem; }
.s2xx { background: #dafbe1; color: #0a5c2b; } .s3xx { background: #e8f0fe; color: #0b3d91; }
.s4xx { background: #fff1e5; color: #8a4b00; } .s5xx { background: #ffebe9; color: #a4161a; }
details { margin: .5rem 0; }
details > summary { cursor: pointer; font-weight: 600; font-size: .92rem; }
.shape-block { border: 1px solid var(--line); border-radius: 6px; padding: .4rem .75rem; }
.shape-block[open] > summary { margin-bottom: .35rem; }
.error-shape { background: #fffaf5; }
details.nested { margin: .3rem 0 0; }
details.nested > summary { font-weight: 400; color: var(--muted); font-size: .85rem; }
.schema-def { border-top: 1px solid var(--line); padding: .5rem .75rem 1rem; margin: 0 -.75rem; scroll-margin-top: 4rem; }
.schema-def h3 { margin: .5rem 0; font-size: 1.05rem; } .schema-def h3 > code { font-weight: 700; font-size: 1.05rem; }
.schema-def:target, .op:target { box-shadow: 0 0 0 3px #b6cdf5; border-radius: 8px; }
[hidden] { display: none !important; }
@media (max-width: 56rem) {
  .frame { display: block; }
  .toc { position: static; height: auto; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); padding: .75rem 1rem; }
  /* On a phone the contents are the groups only, in a row: the operations follow below. */
  .toc-ops { display: none; }
  .toc-tags { display: flex; flex-wrap: wrap; gap: .25rem .9rem; }
  .toc-tag { margin: .25rem 0; }
  main { padding: 1rem; }
  h1 { font-size: 1.5rem; }
  .lead { font-size: 1rem; }
  .op { padding: .75rem .8rem; }
  .top { padding: .5rem 1rem; }
  .facts { grid-template-columns: 1fr; }
}
`;
