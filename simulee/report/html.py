"""report.html: a scan's root causes as one self-contained page (no network, no scripts
from elsewhere). A table of root causes, worst first, sortable by any column; each row
opens to its source excerpt (the lines involved highlighted), its witness (launch,
threads, values) and every kernel it shows in. Two plots: root causes by type, and how
many kernels took how long."""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

from simulee import __version__
from simulee.model.findings import source_lines
from simulee.report.formats import VERDICT_WORDS, launch_text, origin_text, place_text
from simulee.report.rootcause import Bugs

CONTEXT = 2  # source lines shown before and after each line of a finding
JOIN = 8  # two lines this close share one excerpt
SECONDS_BUCKETS = (0.1, 0.3, 1, 3, 10, 30, 100)  # upper bounds of the seconds-per-kernel plot's bars
SEVERITY_COLOURS = {"error": "#c62828", "warning": "#ef6c00", "note": "#1565c0"}

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; margin: 0 0 .3em; } h2 { font-size: 1.1em; margin: 1.2em 0 .4em; }
.plots { display: flex; gap: 2em; flex-wrap: wrap; }
table.causes { border-collapse: collapse; width: 100%; }
table.causes th { text-align: left; background: #eee; cursor: pointer; user-select: none; padding: 4px 8px; }
table.causes th[aria-sort=ascending]::after { content: " \\25B2"; }
table.causes th[aria-sort=descending]::after { content: " \\25BC"; }
table.causes td { padding: 4px 8px; border-top: 1px solid #ddd; vertical-align: top; overflow-wrap: anywhere; }
table.causes td:nth-child(2) { white-space: nowrap; } table.causes td:nth-child(3) { min-width: 18em; }
tr.cause { cursor: pointer; } tr.cause:hover { background: #f5f5f5; }
.error { color: #c62828; font-weight: 600; } .warning { color: #ef6c00; font-weight: 600; }
.new { color: #c62828; } .unchanged { color: #777; }
tr.detail td { background: #fafafa; }
pre.source { background: #fff; border: 1px solid #ddd; padding: 4px 0; overflow-x: auto; margin: .4em 0; }
pre.source span { display: block; padding: 0 8px; } pre.source span.hit { background: #fff3c4; }
.muted { color: #777; }
"""

SCRIPT = """
document.querySelectorAll("table.causes th").forEach((header, column) => {
  header.addEventListener("click", () => {
    const table = header.closest("table");
    const order = header.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    table.querySelectorAll("th").forEach(th => th.removeAttribute("aria-sort"));
    header.setAttribute("aria-sort", order);
    const numeric = header.dataset.type === "number";
    const value = body => body.rows[0].cells[column].dataset.sort;
    const bodies = Array.from(table.tBodies);
    bodies.sort((a, b) => {
      const x = value(a), y = value(b);
      const c = numeric ? Number(x) - Number(y) : x.localeCompare(y);
      return order === "ascending" ? c : -c;
    });
    bodies.forEach(body => table.appendChild(body));
  });
});
document.querySelectorAll("tr.cause").forEach(row => {
  row.addEventListener("click", () => {
    const detail = row.nextElementSibling;
    detail.hidden = !detail.hidden;
    row.setAttribute("aria-expanded", String(!detail.hidden));
  });
});
"""


def page(bugs: Bugs, project: str, seconds: float, new_only: bool = False) -> str:
    """The report page of a scan's bugs (file paths relative to bugs.root)."""
    causes = bugs.shown(new_only)
    errors = sum(1 for c in causes if c["witness"]["severity"] == "error")
    findings = sum(len(c["findings"]) for c in causes)
    checked = sum(1 for record in bugs.records if record["status"] == "ok")
    headline = (f"{checked} of {len(bugs.records)} kernels checked, {len(causes)} root causes"
                + (" new since the baseline" if new_only else "")
                + f" ({errors} errors, {len(causes) - errors} warnings) from {findings} findings; {seconds:.1f} s")
    if bugs.baseline:
        states = Counter(c["baseline"] for c in bugs.causes)
        headline += f"; against the baseline: {states['new']} new, {states['unchanged']} unchanged, " \
                    f"{len(bugs.absent)} absent"
    columns = [("severity", "text"), ("type", "text"), ("where", "text"), ("kernels", "number"),
               ("findings", "number"), ("instances", "number")] + ([("baseline", "text")] if bugs.baseline else []) \
        + [("message", "text")]
    header = "".join(f'<th data-type="{kind}">{name}</th>' for name, kind in columns)
    bodies = "\n".join(_cause(number, cause, bugs) for number, cause in enumerate(causes))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Simulee: {html.escape(project)}</title>
<style>{STYLE}</style></head>
<body>
<h1>Simulee scan: {html.escape(project)}</h1>
<p id="headline">{html.escape(headline)}</p>
<div class="plots">
<figure><figcaption>Root causes by type</figcaption>{_types_plot(causes)}</figure>
<figure><figcaption>Kernels by seconds taken</figcaption>{_seconds_plot(bugs.records)}</figure>
<figure><figcaption>Kernels by verdict</figcaption>{_verdicts_plot(bugs.records)}</figure>
</div>
<h2>Root causes, worst first (click a column to sort, a row to open it)</h2>
<table class="causes" id="causes"><thead><tr>{header}</tr></thead>
{bodies}
</table>
{_verdicts(bugs.records)}
<p class="muted">simulee {__version__}</p>
<script>{SCRIPT}</script>
</body></html>
"""


def _cause(number: int, cause: dict, bugs: Bugs) -> str:
    """A tbody: the root cause's row and its detail row (hidden until clicked)."""
    witness = cause["witness"]
    where = f"{witness['file']}:{witness['line']}"
    severity = witness["severity"]
    cells = [(severity, f'<span class="{severity}">{severity}</span>', _rank(severity)),
             (witness["type"], html.escape(witness["type"]), witness["type"]),
             (where, html.escape(where), f"{witness['file']}:{witness['line']:09d}"),
             (None, str(len(cause["kernels"])), len(cause["kernels"])),
             (None, str(len(cause["findings"])), len(cause["findings"])),
             (None, str(cause["instances"]), cause["instances"])]
    if bugs.baseline:
        cells.append((None, f'<span class="{cause["baseline"]}">{cause["baseline"]}</span>', cause["baseline"]))
    cells.append((None, html.escape(witness["message"]), witness["message"]))
    row = "".join(f'<td data-sort="{html.escape(str(key))}">{shown}</td>' for _, shown, key in cells)
    return (f'<tbody id="cause-{number}"><tr class="cause" aria-expanded="false">{row}</tr>\n'
            f'<tr class="detail" hidden><td colspan="{len(cells)}">{_detail(cause, bugs.root)}</td></tr></tbody>')


def _rank(severity: str) -> int:
    """Sorts errors before warnings before notes (ascending)."""
    return {"error": 0, "warning": 1}.get(severity, 2)


def _detail(cause: dict, root: Path | None) -> str:
    """The source excerpt, the witness and the kernels of a root cause."""
    witness = cause["witness"]
    places = [p for p in (witness["first"], witness["second"]) if p and p.get("file") and p.get("line")]
    parts = [_excerpt(file, lines, root) for file, lines in _excerpts(places)]
    sides = [f"block ({','.join(map(str, p['block']))}) thread ({','.join(map(str, p['thread']))}) "
             f"{html.escape(p['access'])}s at line {p['line']}"
             for p in (witness["first"], witness["second"]) if p and p.get("thread") is not None]
    if sides:
        parts.append(f"<p><b>Witness</b>: {'; '.join(sides)}</p>")
    launch = witness["launch"]
    if launch:
        parts.append(f"<p><b>Launch</b>: {html.escape(launch_text(launch))} ({html.escape(origin_text(launch))})</p>")
    rows = "".join(f"<tr><td>{html.escape(f['kernel'])}</td><td>{html.escape(place_text(f))}</td>"
                   f"<td>{f['severity']}</td><td>{html.escape(f['type'])}</td>"
                   f"<td>{html.escape(f.get('hazard') or '')}{' (benign)' if f.get('benign') else ''}</td>"
                   f"<td>{f['instances']}</td></tr>" for f in cause["findings"])
    parts.append(f"<p><b>In {len(cause['kernels'])} kernel{'s' if len(cause['kernels']) != 1 else ''}</b> "
                 f"(root cause {cause['fingerprint']})</p><table class=\"instances\"><tr><th>kernel</th>"
                 f"<th>where</th><th>severity</th><th>type</th><th>hazard</th><th>instances</th></tr>{rows}</table>")
    return "\n".join(parts)


def _excerpts(places: list[dict]) -> list[tuple[str, list[int]]]:
    """The lines to show, by file: lines of one file this close (JOIN) share an excerpt."""
    shown: list[tuple[str, list[int]]] = []
    for place in places:
        for file, lines in shown:
            if file == place["file"] and any(abs(line - place["line"]) <= JOIN for line in lines):
                lines.append(place["line"])
                break
        else:
            shown.append((place["file"], [place["line"]]))
    return shown


def _excerpt(file: str, hits: list[int], root: Path | None) -> str:
    """Lines around `hits` of `file`, numbered, the hits highlighted."""
    lines = source_lines(str((root or Path()) / file))
    if not lines:
        return f'<p class="muted">{html.escape(file)}: source not readable</p>'
    first, last = max(min(hits) - CONTEXT, 1), min(max(hits) + CONTEXT, len(lines))
    spans = "".join(f'<span class="{"hit" if number in hits else "context"}">{number:5} | '
                    f'{html.escape(lines[number - 1].expandtabs(4))}</span>' for number in range(first, last + 1))
    return f'<div><b>{html.escape(file)}</b><pre class="source">{spans}</pre></div>'


def _types_plot(causes: list[dict]) -> str:
    """A horizontal bar per (type, severity): how many root causes."""
    counts = Counter((c["witness"]["type"], c["witness"]["severity"]) for c in causes)
    bars = [(f"{kind} ({severity})", count, SEVERITY_COLOURS.get(severity, "#555"))
            for (kind, severity), count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    return _bars(bars)


VERDICT_COLOURS = {"proved": "#2e7d32", "race": "#c62828", "possible-race": "#ef6c00", "not-proved": "#757575"}


def _verdicts_plot(records: list[dict]) -> str:
    """A bar per verdict (simulee.checker.kernel.kernel_verdict): how many kernels."""
    counts = Counter(record.get("verdict") for record in records if record.get("verdict"))
    return _bars([(VERDICT_WORDS[name], counts[name], colour) for name, colour in VERDICT_COLOURS.items()
                  if counts[name]])


def _verdicts(records: list[dict]) -> str:
    """Every kernel's verdict and why, in a table that opens on a click."""
    rows = "\n".join(
        f'<tr><td>{html.escape(record["kernel"])}</td><td>{html.escape(record["file"])}:{record["line"]}</td>'
        f'<td style="color: {VERDICT_COLOURS.get(record["verdict"], "#222")}">'
        f'{html.escape(VERDICT_WORDS.get(record["verdict"], record["verdict"]))}</td>'
        f'<td>{html.escape(record.get("verdict_reason", ""))}</td></tr>'
        for record in sorted(records, key=lambda r: (r["file"], r["line"], r["kernel"])) if record.get("verdict"))
    if not rows:
        return ""
    return (f'<details id="verdicts"><summary>What was decided of each kernel (proved race-free for every launch, '
            f'race, possible race, not proved)</summary>\n<table class="causes"><thead><tr><th>kernel</th>'
            f'<th>where</th><th>verdict</th><th>why</th></tr></thead>\n{rows}\n</table></details>')


def _seconds_plot(records: list[dict]) -> str:
    """How many kernels took how long, in buckets growing about threefold."""
    counts = [0] * (len(SECONDS_BUCKETS) + 1)
    for record in records:
        counts[sum(1 for bound in SECONDS_BUCKETS if record["seconds"] >= bound)] += 1
    labels = [f"< {SECONDS_BUCKETS[0]} s"] + [f"{low}–{high} s" for low, high in zip(SECONDS_BUCKETS,
                                                                                     SECONDS_BUCKETS[1:])] \
        + [f"≥ {SECONDS_BUCKETS[-1]} s"]
    return _bars([(label, count, "#546e7a") for label, count in zip(labels, counts)])


def _bars(bars: list[tuple[str, int, str]]) -> str:
    """An SVG bar chart: a label, a bar as long as its count, and the count."""
    if not bars:
        return '<p class="muted">none</p>'
    most = max(count for _, count, _ in bars) or 1
    height, label_width, bar_width = 20, 240, 180
    rows = []
    for number, (label, count, colour) in enumerate(bars):
        y = number * height
        width = bar_width * count / most
        rows.append(f'<text x="{label_width - 6}" y="{y + 14}" text-anchor="end">{html.escape(label)}</text>'
                    f'<rect x="{label_width}" y="{y + 3}" width="{width:.1f}" height="{height - 6}" fill="{colour}"/>'
                    f'<text x="{label_width + width + 4:.1f}" y="{y + 14}">{count}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_width + bar_width + 50}" '
            f'height="{height * len(bars)}" font-size="12">{"".join(rows)}</svg>')
