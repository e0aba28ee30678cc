"""Self-contained HTML pages: sortable, filterable tables and inline SVG plots, with nothing fetched.

The audit report, ``hwkb sheet`` and ``hwkb compare`` write their HTML through
these pieces, so every page looks and behaves alike: one inline style sheet,
one small inline script (no network, no external CSS or fonts), every text
escaped. A table made by :func:`table` sorts when a header is clicked (numbers
by value: a cell may carry its number in ``data-v``) and filters rows by the
text typed in the box above it. The page's address can ask for both on load,
``page.html#sort=deviation:desc&filter=ampere``, which is also how a headless
browser test checks the sorting.

>>> "<script>" in table(["a"], [["<script>"]])
False
>>> link("TechPowerUp", "javascript:alert(1)")
'TechPowerUp'
"""
from __future__ import annotations

import html
import math
import re
from typing import Iterable, Mapping, Sequence

__all__ = ["escape", "page", "table", "link", "Markup", "first_url", "anchor", "strip_plot", "PAGE_CSS",
           "PAGE_SCRIPT"]

PAGE_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em auto;max-width:80em;
 padding:0 1.5em;color:#1d2330;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:2em;border-bottom:2px solid #d9dee7;
 padding-bottom:.2em}h3{font-size:1.05em;margin:1.4em 0 .4em}
p.lead{color:#566074;margin-top:0}nav a{margin-right:1em}
table{border-collapse:collapse;margin:.4em 0 1.2em;font-size:.92em}
th,td{padding:.3em .7em;text-align:left;border-bottom:1px solid #e6e9ef;vertical-align:top}
th{background:#eef1f6;position:sticky;top:0;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}table.sortable th:hover{background:#e0e6f0}
th[aria-sort=ascending]::after{content:" \\25B2";font-size:.75em}
th[aria-sort=descending]::after{content:" \\25BC";font-size:.75em}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:nth-child(even) td{background:#fafbfd}
td.status,td.id{white-space:nowrap}td.status{font-weight:600}
tr.inconsistent td.status{color:#fff;background:#c0392b}
tr.within_rounding td.status{background:#f7e7a9}tr.consistent td.status{background:#d3efd3}
tr.note td{color:#566074;font-size:.9em;border-bottom:none;padding:.1em .7em .1em 2.5em;background:#fff}
input.filter{font:inherit;padding:.25em .5em;margin:.3em 0;width:22em;border:1px solid #c5ccd8;border-radius:4px}
span.count{color:#566074;margin-left:.8em;font-size:.9em}
ul.summary li{margin:.15em 0}div.wide{overflow-x:auto}a{color:#1f5fbf}
svg.plot{display:block;margin:.3em 0 1em;max-width:100%}svg.plot text{font-size:12px;fill:#333}
svg.plot .grid{stroke:#e3e6ec}svg.plot .zero{stroke:#7a8291}
svg.plot circle{fill:#c0392b;fill-opacity:.55;stroke:#7b1d14;stroke-width:.5}
"""

PAGE_SCRIPT = r"""
(function(){
function cellValue(row,i){var c=row.cells[i];if(!c)return "";var v=c.getAttribute("data-v"),t=c.textContent.trim();
 var x=parseFloat(v!==null&&v!==""?v:(/^[-+]?[0-9.]/.test(t)?t.replace(/,/g,""):"x"));
 return isNaN(x)?t.toLowerCase():x;}
function units(body){var out=[];for(var r of Array.from(body.rows)){
 if(r.classList.contains("note")&&out.length)out[out.length-1].push(r);else out.push([r]);}return out;}
function sortTable(t,i,dir){var body=t.tBodies[0];if(!body)return;var us=units(body);
 us.sort(function(a,b){var x=cellValue(a[0],i),y=cellValue(b[0],i);
  var nx=typeof x==="number",ny=typeof y==="number";
  if(nx&&ny)return dir*(x-y);if(nx)return -1;if(ny)return 1;return dir*(x<y?-1:x>y?1:0);});
 for(var u of us)for(var r of u)body.appendChild(r);
 for(var h of Array.from(t.tHead.rows[0].cells))h.removeAttribute("aria-sort");
 t.tHead.rows[0].cells[i].setAttribute("aria-sort",dir>0?"ascending":"descending");}
function filterTable(t,text){var q=text.trim().toLowerCase(),shown=0,body=t.tBodies[0];if(!body)return;
 for(var u of units(body)){var hit=!q||u.some(function(r){return r.textContent.toLowerCase().indexOf(q)>=0;});
  for(var r of u)r.hidden=!hit;if(hit)shown++;}
 var n=document.querySelector('[data-count-for="'+t.id+'"]');if(n)n.textContent=shown+" shown";}
function column(t,name){var hs=t.tHead?Array.from(t.tHead.rows[0].cells):[];
 for(var i=0;i<hs.length;i++)if(hs[i].getAttribute("data-key")===name)return i;return -1;}
for(var t of Array.from(document.querySelectorAll("table.sortable"))){(function(t){
 Array.from(t.tHead.rows[0].cells).forEach(function(h,i){h.addEventListener("click",function(){
  sortTable(t,i,h.getAttribute("aria-sort")==="ascending"?-1:1);});});})(t);}
for(var box of Array.from(document.querySelectorAll("input.filter"))){(function(box){
 var t=document.getElementById(box.getAttribute("data-table"));
 box.addEventListener("input",function(){filterTable(t,box.value);});})(box);}
var asked={};location.hash.replace(/^#/,"").split("&").forEach(function(p){var kv=p.split("=");
 if(kv.length===2)asked[kv[0]]=decodeURIComponent(kv[1]);});
if(asked.sort){var s=asked.sort.split(":"),dir=s[1]==="desc"?-1:1;
 for(var t of Array.from(document.querySelectorAll("table.sortable"))){var i=column(t,s[0]);if(i>=0)sortTable(t,i,dir);}}
if(asked.filter!==undefined){for(var box of Array.from(document.querySelectorAll("input.filter"))){
 box.value=asked.filter;filterTable(document.getElementById(box.getAttribute("data-table")),asked.filter);}}
document.documentElement.setAttribute("data-ready","1");
})();
"""

_URL = re.compile(r"https?://[^\s<>\"'()\[\]]+")


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


def anchor(*parts: str) -> str:
    """An element id made of ``parts``: whitespace, which an id may not hold, becomes ``_``."""
    return re.sub(r"\s+", "_", "-".join(parts))


def first_url(text: str | None) -> str | None:
    """The first http(s) address in a source text (``... (https://cloud.google.com/tpu/docs/v4) ...``), if any."""
    found = _URL.search(text or "")
    return found.group(0).rstrip(".,;:") if found else None


class Markup(str):
    """HTML made here (a link), put into a cell as it is; any other cell text is escaped."""


def link(text: str, url: str | None, title: str | None = None) -> Markup:
    """``text`` as a link to ``url`` when it is an http(s) address or a ``#`` anchor, else as plain text."""
    if not url or not (_URL.fullmatch(url) or url.startswith("#")):
        return Markup(escape(text))
    hint = f' title="{escape(title)}"' if title else ""
    return Markup(f'<a href="{escape(url)}"{hint} rel="noreferrer">{escape(text)}</a>')


def _cell(value, numeric: bool, css: str = "") -> str:
    sort = None
    if isinstance(value, tuple):
        value, sort = value
    body = value if isinstance(value, Markup) else escape(value)
    classes = " ".join(c for c in (css, "n" if numeric else "") if c)
    attrs = (f' class="{classes}"' if classes else "") + (
        f' data-v="{sort!r}"' if sort is not None and math.isfinite(sort) else "")
    return f"<td{attrs}>{body}</td>"


def table(header: Sequence[str], rows: Iterable[Sequence], *, table_id: str = "", numeric: Iterable[int] = (),
          row_classes: Sequence[str] | None = None, cell_classes: Mapping[int, str] | None = None,
          notes: Sequence[Sequence[str]] | None = None, filter_box: bool = False) -> str:
    """A sortable table; a cell is text, or (text, number to sort by), or :class:`Markup`.

    ``notes[i]`` are lines shown under row ``i`` (they move with it when sorted
    and match its filter); ``filter_box`` puts a filter box above the table
    (which then needs ``table_id``).
    """
    numeric = set(numeric)
    cell_classes = dict(cell_classes or {})
    head = "".join(f'<th data-key="{escape(h)}" scope="col">{escape(h)}</th>' for h in header)
    lines = []
    for i, row in enumerate(rows):
        css = row_classes[i] if row_classes else ""
        lines.append((f'<tr class="{escape(css)}">' if css else "<tr>")
                     + "".join(_cell(v, j in numeric, cell_classes.get(j, "")) for j, v in enumerate(row)) + "</tr>")
        for note in (notes[i] if notes else ()):
            lines.append(f'<tr class="note"><td colspan="{len(header)}">{escape(note)}</td></tr>')
    ident = f' id="{escape(table_id)}"' if table_id else ""
    box = (f'<div><label>Filter <input class="filter" type="search" data-table="{escape(table_id)}"></label>'
           f'<span class="count" data-count-for="{escape(table_id)}"></span></div>' if filter_box and table_id else "")
    return (f'{box}<div class="wide"><table class="sortable"{ident}><thead><tr>{head}</tr></thead><tbody>\n'
            + "\n".join(lines) + "\n</tbody></table></div>")


def page(title: str, body: Iterable[str], lead: str = "") -> str:
    """The whole document: ``body`` (HTML made with the pieces here) under an ``<h1>`` of ``title``."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{escape(title)}</title>", f"<style>{PAGE_CSS}</style></head><body>",
             f"<h1>{escape(title)}</h1>"]
    if lead:
        parts.append(f'<p class="lead">{escape(lead)}</p>')
    parts += list(body)
    parts.append(f"<script>{PAGE_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def _position(percent: float) -> float:
    """Where a deviation sits on the plot's axis: sign x log10(1 + |%|), so 0.1 % and 10,000 % both show."""
    return math.copysign(math.log10(1 + abs(percent)), percent)


def strip_plot(lines: Sequence[tuple[str, Sequence[tuple[str, float]]]], unit: str = "%", width: int = 760) -> str:
    """An inline SVG: one line per label (a rule), one dot per (name, deviation in %) on a symmetric log axis."""
    values = [v for _, points in lines for _, v in points if math.isfinite(v)]
    if not values:
        return ""
    decade = lambda v: 10.0 ** math.ceil(math.log10(max(1.0, v)))  # each end of the axis: a decade past the data
    span = _position(decade(max(0.0, *values)))
    label_width, right, row_height, top = 240, 44, 34, 8
    plot_width = width - label_width - right
    lo = _position(-decade(-min(values))) if min(values) < 0 else 0.0
    x = lambda v: label_width + plot_width * (_position(v) - lo) / (span - lo)
    height = top + row_height * len(lines) + 30
    parts = [f'<svg class="plot" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="deviation per rule">']
    ticks = [0] + [t for k in range(0, 31) for t in (10.0 ** k, -10.0 ** k) if lo <= _position(t) <= span]
    bottom = top + row_height * len(lines)
    labelled: list[float] = []
    for t in sorted(ticks, key=abs):  # 0 first, then outwards; a label too close to one drawn is left out
        css = "zero" if t == 0 else "grid"
        parts.append(f'<line class="{css}" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top}" y2="{bottom}"/>')
        if all(abs(x(t) - other) >= 56 for other in labelled):
            labelled.append(x(t))
            parts.append(f'<text x="{x(t):.1f}" y="{bottom + 14}" text-anchor="middle">'
                         f'{f"{t:+,g}{escape(unit)}" if t else "0"}</text>')
    parts.append(f'<text x="{label_width + plot_width / 2:.0f}" y="{bottom + 28}" text-anchor="middle">'
                 f"deviation of the stated value from the implied one (log scale)</text>")
    for i, (label, points) in enumerate(lines):
        y = top + row_height * i + row_height / 2
        shown = label if len(label) <= 34 else label[:33] + "…"
        parts.append(f'<text x="{label_width - 8}" y="{y + 4:.1f}" text-anchor="end"><title>{escape(label)}</title>'
                     f"{escape(shown)}</text>")
        parts.append(f'<line class="grid" x1="{label_width}" x2="{label_width + plot_width}" y1="{y:.1f}" '
                     f'y2="{y:.1f}"/>')
        for j, (name, v) in enumerate(points):
            if math.isfinite(v):  # spread up and down a little, so equal deviations do not hide each other
                parts.append(f'<circle cx="{x(v):.1f}" cy="{y + (j % 5 - 2) * 3:.1f}" r="5"><title>{escape(name)}: {v:+.3g}'
                             f"{escape(unit)}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)
