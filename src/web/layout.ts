// The frame of every page: landmarks, skip link, header with search, footer, and the one small stylesheet.
import { html, Html } from './html.js';

// Colours keep at least 4.5:1 contrast against their backgrounds (WCAG AA for body text). A scroll box is positioned:
// the hidden labels inside a wide table are placed within it, not at the page's right edge, where they widened the
// page. On a phone the table keeps its key columns (.extra leaves), and the compare table scrolls in its box beside
// its row labels, which stay in view.
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
a{color:#0a4fb3}a:hover{color:#063a85}
:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:9}.skip:focus{left:.5rem}
header.site{background:#12263f;color:#fff}
header.site .bar{max-width:72rem;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.75rem 1.5rem;align-items:center}
header.site a{color:#fff;text-decoration:none}
.brand{font-weight:700;font-size:1.25rem}
header.site nav ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0}
header.site form{margin-left:auto;display:flex;gap:.25rem;flex:1 1 16rem;max-width:28rem}
header.site input{flex:1;min-width:0}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.75rem;line-height:1.2;margin:.5rem 0 1rem}h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
input,select,button{font:inherit;padding:.4rem .5rem;border:1px solid #6b7380;border-radius:.3rem;background:#fff;color:#1b1f24}
button,.button{background:#0a4fb3;color:#fff;border-color:#0a4fb3;cursor:pointer;text-decoration:none;padding:.4rem .9rem;border-radius:.3rem;display:inline-block}
button:hover,.button:hover{background:#063a85;color:#fff}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap}
.grid{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));list-style:none;padding:0;margin:0}
.card{background:#fff;border:1px solid #d5d9e0;border-radius:.5rem;padding:.75rem 1rem}
.card h2,.card h3{font-size:1.05rem;margin:0 0 .25rem}
.muted{color:#4f5866}.price{font-weight:700;font-size:1.1rem}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;background:#fff;border:1px solid #d5d9e0;border-radius:.5rem;padding:.75rem;margin-bottom:1rem}
.filters .field{display:flex;flex-direction:column;font-size:.9rem;gap:.2rem}.filters .grow{flex:1 1 18rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #d5d9e0;vertical-align:top}
th{width:40%}
.tags{display:flex;flex-wrap:wrap;gap:.35rem;list-style:none;padding:0;margin:.25rem 0}
.tags li{background:#e6ecf5;color:#1b2f4d;border-radius:1rem;padding:.05rem .6rem;font-size:.875rem}
.pager{margin:1.25rem 0}
.description{white-space:pre-line}
.stale{background:#fff4e0;color:#6b3d00;border:1px solid #b35c00;border-radius:.3rem;padding:.05rem .4rem}
.drop{background:#e3f4e8;color:#14532d;border-radius:.3rem;padding:.05rem .4rem}
.sold-out{background:#fde8e8;color:#7f1d1d;border:1px solid #b91c1c;border-radius:.3rem;padding:.05rem .4rem;font-weight:600}
.few-left{background:#fff4e0;color:#6b3d00;border-radius:.3rem;padding:.05rem .4rem}
.notice{background:#fff4e0;border:1px solid #b35c00;border-radius:.5rem;padding:.5rem .75rem;color:#4a2a00}
.chart{max-width:100%;height:auto}
.filters .check{flex-direction:row;align-items:center;gap:.35rem}
.problem{background:#fff4e5;border:1px solid #b35c00;border-radius:.5rem;padding:.5rem 1rem;margin:0 0 1rem}.problem h2{margin-top:.25rem}
.summary{display:flex;gap:1rem;align-items:baseline;flex-wrap:wrap}.summary p{margin:.25rem 0 .75rem}.count{font-weight:600}
.breadcrumb{font-size:.9rem;margin:.25rem 0}
.scroll{overflow-x:auto;position:relative;max-width:100%}table.results th,table.compare th{width:auto}table.results td{white-space:nowrap}
table.results td p{margin:.1rem 0}
table.results .per{white-space:normal}table.results .per>span:not(.muted){display:block}table.results .per>span.sep{display:none}
@media(max-width:40rem){table.results .extra,table.results .terms,table.results .per{display:none}table.results td{white-space:normal}table.results th,table.results td{padding:.4rem .35rem}}
dl.cost{display:grid;grid-template-columns:1fr auto;gap:.15rem 1rem;margin:.75rem 0}dl.cost dd{margin:0;text-align:right}
table.compare{table-layout:fixed;border-collapse:separate;border-spacing:0}table.compare td,table.compare th{overflow-wrap:anywhere}
table.compare tr>:first-child{width:9rem}table.compare th[scope=row]{position:sticky;left:0;z-index:1;background:#fff;border-right:1px solid #d5d9e0}
table.compare.plans-2{min-width:27rem}table.compare.plans-3{min-width:36rem}table.compare.plans-4{min-width:45rem}
@media(max-width:40rem){table.compare tr>:first-child{width:6.5rem}table.compare.plans-2{min-width:24rem}table.compare.plans-3{min-width:33rem}table.compare.plans-4{min-width:42rem}}
.best{display:inline-block;margin-left:.25rem;padding:0 .35rem;border:1px solid #14532d;border-radius:.3rem;background:#e3f4e8;color:#14532d;font-size:.8rem;font-weight:600}
.native{display:block;font-size:.875rem}.compare-currency{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
.ranges{display:flex;flex-wrap:wrap;gap:.5rem 1rem;border:1px solid #d5d9e0;border-radius:.3rem;margin:0;padding:.25rem .75rem .5rem;font-size:.9rem}
.ranges legend{padding:0 .25rem}.range{display:flex;gap:.25rem;align-items:center}.range-name{margin-right:.25rem}
.compare-pick{margin:.25rem 0;font-size:.9rem}.compare-bar{margin:1rem 0}
table.comparable{margin-bottom:.5rem}table.comparable caption{text-align:left;font-weight:600;padding:.25rem 0}
.layout{display:grid;gap:1.5rem}.layout>aside{align-self:start}
@media(min-width:48rem){.layout{grid-template-columns:2fr 1fr}.layout>aside{grid-column:2;grid-row:1}.layout>.details{grid-column:1;grid-row:1}}
.keyspecs{display:flex;flex-wrap:wrap;gap:.25rem .9rem;list-style:none;padding:0;margin:.25rem 0 .75rem}
details.filters-fold{background:#fff;border:1px solid #d5d9e0;border-radius:.5rem;margin-bottom:1rem}
details.filters-fold>summary{cursor:pointer;padding:.6rem .75rem;font-weight:600}details.filters-fold>summary .muted{font-weight:400}
details.filters-fold .filters{border:0;border-top:1px solid #d5d9e0;border-radius:0 0 .5rem .5rem;margin:0}
footer.site{max-width:72rem;margin:2rem auto 0;padding:1rem;border-top:1px solid #d5d9e0;color:#4f5866;font-size:.9rem}
`;

export interface PageFrame {
  title: string;
  description?: string;
  /** the text of the header's search box */
  query?: string;
  /** the page's Atom feed, announced to feed readers */
  feed?: string;
}

export function layout(frame: PageFrame, content: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} — hostdir</title>
${frame.description ? html`<meta name="description" content="${frame.description}">` : ''}
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${frame.feed ? html`<link rel="alternate" type="application/atom+xml" title="New plans and price drops" href="${frame.feed}">` : ''}
<style>${new Html(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<div class="bar">
<a class="brand" href="/">hostdir</a>
<nav aria-label="Main"><ul><li><a href="/">Categories</a></li><li><a href="/hosts">Hosts</a></li><li><a href="/search">Search</a></li></ul></nav>
<form role="search" action="/search" method="get" aria-label="Site search">
<label class="visually-hidden" for="site-search">Search products</label>
<input id="site-search" type="search" name="q" value="${frame.query ?? ''}" placeholder="Search products, e.g. nvme vps" maxlength="200">
<button type="submit">Search</button>
</form>
</div>
</header>
<main id="main" tabindex="-1">
${content}
</main>
<footer class="site">
<p>hostdir lists the catalogues hosting providers sync from their billing systems. Prices are the providers' own, in their currencies, and are updated whenever a provider syncs.</p>
</footer>
</body>
</html>
`;
}
