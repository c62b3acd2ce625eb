/** The console's one stylesheet (served from this origin: the CSP allows no inline style). */
export const STYLES = `
:root { --fg: #1b1f24; --muted: #4a5360; --accent: #0b57d0; --warn: #8a4b00; --warnbg: #fff4e0; --okbg: #e8f4ea; --line: #c9d0d8; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: #fff; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; z-index: 2; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); }
header ul { list-style: none; display: flex; flex-wrap: wrap; gap: .75rem; margin: 0; padding: 0; }
.brand { font-weight: 700; margin: 0; }
#who { margin: 0 0 0 auto; color: var(--muted); }
main { padding: 1rem; max-width: 80rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
label { display: block; font-weight: 600; margin: .5rem 0 .25rem; }
.option label { display: inline; font-weight: 400; margin-left: .25rem; }
input[type=text], input[type=password], input[type=search], textarea, select { width: 100%; max-width: 48rem; font: inherit; padding: .4rem; border: 1px solid #6b7480; border-radius: 4px; }
textarea#policy-text { font-family: ui-monospace, monospace; font-size: 14px; }
button { font: inherit; padding: .4rem .9rem; margin: .5rem .5rem .5rem 0; border: 1px solid #3b4450; border-radius: 4px; background: #f3f5f8; color: var(--fg); cursor: pointer; }
button.allow { background: #0d6b2e; color: #fff; border-color: #0d6b2e; }
button.deny { background: #a4161a; color: #fff; border-color: #a4161a; }
.hint { color: var(--muted); margin: .25rem 0; }
.error { color: #a4161a; font-weight: 600; }
.columns { display: grid; grid-template-columns: 2fr 1fr; gap: 1.5rem; }
.columns > * { min-width: 0; }
#trace code { overflow-wrap: anywhere; }
@media (max-width: 50rem) { .columns { grid-template-columns: 1fr; } }
.examples { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem; }
pre.value { background: #f6f8fa; padding: .5rem; overflow-x: auto; white-space: pre-wrap; margin: .25rem 0; }
.display { list-style: none; padding: 0; }
.item { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; }
.item h3 { margin: 0; font-size: 1rem; }
.item.redacted { background: #f1f1f1; }
.withheld { font-style: italic; }
.marks { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem; margin: .25rem 0 0; }
.mark { font-size: .85rem; border: 1px solid var(--line); border-radius: 999px; padding: 0 .5rem; color: var(--muted); }
.mark.warn { color: var(--warn); border-color: var(--warn); background: var(--warnbg); }
.consent { border: 2px solid var(--accent); border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.facts dt { font-weight: 600; } .facts dd { margin: 0; }
.named, #link-continue { font-weight: 700; overflow-wrap: anywhere; }
.assessment { border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; }
.assessment h4 { margin: 0 0 .25rem; }
.assessment.warn { background: var(--warnbg); } .assessment.ok { background: var(--okbg); }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; }
#try-form button { display: block; margin-top: .5rem; } #try-result td code { overflow-wrap: anywhere; word-break: break-all; }
.app-words { margin: .25rem 0 .5rem 1.5rem; } .app-words blockquote { margin: 0; padding-left: .5rem; border-left: 3px solid var(--line); }
.app-words figcaption { font-size: .85rem; color: var(--muted); }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; border-bottom: 1px solid var(--line); padding: .3rem .5rem; vertical-align: top; }
.diff-add { background: #e6ffec; } .diff-del { background: #ffebe9; }
.field-error { color: #a4161a; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
#events li, #trace li { font-size: .95rem; }
main:has(.conversation) { padding-bottom: 0; }
.conversation { display: flex; flex-direction: column; min-height: calc(100vh - 6rem); }
#query { flex: 1; }
.composer { position: sticky; bottom: 0; z-index: 1; margin: 0; display: flex; align-items: flex-end; gap: .5rem; background: #fff; border-top: 1px solid var(--line); padding: .25rem 0 .5rem; }
.composer-field { flex: 1; } .composer textarea { max-width: none; } .composer button { margin: 0; }
.turn { scroll-margin-top: .5rem; }
.app-text { margin: .25rem 0; } .app-text figcaption { font-size: .9rem; color: var(--muted); font-style: italic; }
.app-quote { border-left: 3px solid var(--line); background: #f6f8fa; padding: .25rem .5rem; margin-top: .15rem; }
.app-text.untrusted figcaption { color: var(--warn); } .app-text.untrusted .app-quote { border-left-color: var(--warn); }
.source-line { font-size: .9rem; color: var(--muted); margin: .15rem 0 0; }
.turn { border-bottom: 1px solid var(--line); padding: .5rem 0 1rem; }
.turn + .turn { margin-top: .5rem; }
.query-text { font-weight: 600; }
dl.value.fields { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .25rem 0; }
dl.value.fields dt { font-weight: 600; } dl.value.fields dd { margin: 0; overflow-wrap: anywhere; }
table.value.rows { margin: .25rem 0; }
p.value.text { white-space: pre-wrap; margin: .25rem 0; }
.view-title { font-size: 1.1rem; font-weight: 700; margin: .25rem 0 .5rem; }
.warnings { background: var(--warnbg); border: 2px solid var(--warn); border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; }
.warnings h4 { margin: 0 0 .25rem; color: var(--warn); }
.warnings ul { margin: 0; padding-left: 1.25rem; } .warnings li { margin: .25rem 0; }
.warnings code { font-size: 1rem; background: #fff; padding: 0 .25rem; border: 1px solid var(--warn); border-radius: 3px; overflow-wrap: anywhere; }
.view-fields { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: .5rem 0; }
.view-fields dt { font-weight: 600; padding: .2rem 0; }
.view-fields dd { margin: 0; padding: .2rem .5rem; border-left: 4px solid transparent; overflow-wrap: anywhere; }
.view-fields dd.highlight { background: var(--warnbg); border-left-color: var(--warn); }
.view-fields q { font-family: ui-monospace, monospace; }
.view-fields .source { color: var(--muted); font-size: .9rem; }
.view-fields dd.highlight .source { color: var(--warn); font-weight: 600; }
.reason { margin: .5rem 0; }
.card-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 22rem), 1fr)); gap: .75rem; margin: .5rem 0; }
.card-grid > * { min-width: 0; }
.fn-card { border: 1px solid var(--line); border-left: 5px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
.fn-card.status-new { border-left-color: #1a7f37; } .fn-card.status-changed { border-left-color: var(--warn); }
.fn-card.status-removed { border-left-color: #a4161a; background: #fbf5f5; }
.card-name { margin: 0; font-size: 1.05rem; overflow-wrap: anywhere; } .tool-name { font-weight: 400; color: var(--muted); font-size: .9rem; }
.chips { list-style: none; padding: 0; margin: .35rem 0; display: flex; flex-wrap: wrap; gap: .25rem; }
.chip { font-size: .85rem; border: 1px solid var(--line); border-radius: 999px; padding: 0 .5rem; overflow-wrap: anywhere; }
.chip-new { background: #e6ffec; border-color: #1a7f37; } .chip-changed { background: var(--warnbg); border-color: var(--warn); }
.chip-removed { background: #ffebe9; border-color: #a4161a; } .chip-unchanged { color: var(--muted); }
.chip-warn { color: var(--warn); border-color: var(--warn); background: var(--warnbg); } .chip-ok { background: var(--okbg); border-color: #1a7f37; }
.card-dest { margin: .25rem 0; font-size: .95rem; overflow-wrap: anywhere; }
.card-change h5, .card-field h5 { margin: .5rem 0 .15rem; font-size: .95rem; }
.before-after { display: grid; grid-template-columns: 1fr 1fr; gap: .5rem; } .before-after > * { min-width: 0; }
.before-after .side { margin: 0; font-size: .8rem; color: var(--muted); }
.before .app-quote, .before pre.card-value { background: #ffebe9; } .after .app-quote, .after pre.card-value { background: #e6ffec; }
pre.card-value { margin: 0; padding: .25rem; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .8rem; background: #f6f8fa; }
.card-same summary { cursor: pointer; color: var(--muted); margin: .35rem 0; }
.oauth-discovered dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
.oauth-discovered dt { font-weight: 600; } .oauth-discovered dd { margin: 0; overflow-wrap: anywhere; }
.card-binding select, .confirm input[type=text] { max-width: 100%; }
.confirm { margin: .25rem 0; font-size: .9rem; } label.inline { display: inline; font-weight: 400; }
.absent { color: var(--muted); font-style: italic; margin: 0; }
.propose fieldset { margin: .5rem 0 0; }
button.secondary { font-size: .875rem; padding: .15rem .6rem; margin: .25rem .5rem .25rem 0; background: #fff; border-color: #5c6673; color: var(--accent); }
.fit-buttons button { margin: .25rem .5rem .25rem 0; } .card-binding .hint { font-size: .9rem; }
`;
