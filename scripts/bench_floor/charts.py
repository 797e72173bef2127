"""The SVG charts: one run's commands as multiples of their reference, and each target over
the recorded runs."""
import html
import math

from .cases import DURABLE

COLORS = {"cp": "#9ca3af", "cat": "#9ca3af", DURABLE: "#4b5563", "true": "#9ca3af",
          "python": "#f59e0b", "editref": "#2563eb"}


def color(label):
    return next((v for k, v in COLORS.items() if label.startswith(k)), "#9ca3af")


def svg(cases):
    """Horizontal bars: each command's median wall time as a multiple of its case's reference,
    with a whisker from the fastest to the slowest run (same reference median)."""
    bar_h, gap, left, width = 16, 10, 350, 440
    bars = [(case, c) for case in cases for c in case.cmds]
    vmax = max(max(c.spread()[2] / case.reference.wall for case, c in bars), 3.0) * 1.05
    vmax = min(vmax, 40.0)
    height = 60 + len(bars) * (bar_h + 4) + len(cases) * gap + 44
    x = lambda v: left + min(v, vmax) / vmax * width
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" '
             f'height="{height}" font-family="sans-serif" font-size="12">',
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="10" y="22" font-size="15" font-weight="bold">Whole-process time, × the '
             'case\'s reference (median; whisker: min to max; lower is better)</text>']
    y = 44
    step = 1 if vmax <= 12 else 5
    for tick in range(0, int(vmax) + 1, step):
        parts.append(f'<line x1="{x(tick):.1f}" y1="{y - 4}" x2="{x(tick):.1f}" '
                     f'y2="{height - 42}" stroke="#e5e7eb"/>')
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 28}" text-anchor="middle" '
                     f'fill="#6b7280">{tick}×</text>')
    for case in cases:
        ref = case.reference.wall
        for c in case.cmds:
            v = c.wall / ref
            lo, _, hi = (s / ref for s in c.spread())
            label = f"{case.name}: {c.label}" if c is case.cmds[0] else c.label
            parts.append(f'<text x="{left - 8}" y="{y + 12}" text-anchor="end">'
                         f'{html.escape(label)}</text>')
            parts.append(f'<rect x="{left}" y="{y}" width="{max(x(v) - left, 1):.1f}" '
                         f'height="{bar_h}" fill="{color(c.label)}"/>')
            parts.append(f'<line x1="{x(lo):.1f}" y1="{y + bar_h / 2}" x2="{x(hi):.1f}" '
                         f'y2="{y + bar_h / 2}" stroke="#111827" stroke-width="1.5"/>')
            failed = "" if c.ok() else " (failed)"
            parts.append(f'<text x="{max(x(v), x(hi)) + 4:.1f}" y="{y + 12}">{v:.2f}×'
                         f'{failed}</text>')
            for t in case.targets:
                if t.subject_label == c.label and t.limit is not None and \
                        t.reference_label == case.reference_label:
                    tx = x(t.limit)
                    parts.append(f'<line x1="{tx:.1f}" y1="{y - 2}" x2="{tx:.1f}" '
                                 f'y2="{y + bar_h + 2}" stroke="#dc2626" stroke-width="2"/>')
            y += bar_h + 4
        y += gap
    parts.append(f'<text x="{left}" y="{height - 8}" fill="#dc2626" font-size="11">red tick: '
                 'the target of that command against the same reference</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


LINE_COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d",
               "#65a30d", "#4b5563", "#b45309", "#1e40af"]


def trend_svg(runs):
    """One line per target over the recorded runs: the subject's median as a multiple of its
    reference (for the 1 KB case, of `true`), log scale; a hollow marker is a missed target."""
    series = {}
    for i, run in enumerate(runs):
        for t in run.get("targets", []):
            value = t.get("ratio")
            if value is None:  # absolute target: × `true` of the same run
                cmds = run["cases"].get(t["case"], {}).get("commands", {})
                if "true" in cmds and cmds["true"]["median_ms"] > 0:
                    value = t["ms"] / cmds["true"]["median_ms"]
            if value:
                series.setdefault(t["row"], []).append((i, value, t["met"]))
    left, top, width, height, legend_w = 60, 40, 560, 300, 380
    total_h = top + height + 60 + max(0, len(series) * 18 - height)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + legend_w}" '
             f'height="{total_h}" font-family="sans-serif" font-size="12">',
             '<rect width="100%" height="100%" fill="white"/>',
             '<text x="10" y="22" font-size="15" font-weight="bold">editref over recorded runs: '
             'median × reference per target (log scale; lower is better)</text>']
    if not series:
        parts.append(f'<text x="{left}" y="{top + 20}">no runs recorded yet</text></svg>')
        return "\n".join(parts) + "\n"
    values = [v for s in series.values() for _, v, _ in s]
    lo = 10 ** math.floor(math.log10(min(min(values), 1.0)))
    hi = 10 ** math.ceil(math.log10(max(values) * 1.05))
    n = len(runs)
    x = lambda i: left + (width / 2 if n == 1 else i / (n - 1) * width)
    y = lambda v: top + height - (math.log10(v) - math.log10(lo)) / (
        math.log10(hi) - math.log10(lo)) * height
    decade = lo
    while decade <= hi * 1.0001:
        for m in (1, 2, 5):
            v = decade * m
            if lo <= v <= hi * 1.0001:
                parts.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + width}" '
                             f'y2="{y(v):.1f}" stroke="{"#d1d5db" if m == 1 else "#f3f4f6"}"/>')
                parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end" '
                             f'fill="#6b7280">{v:g}×</text>')
        decade *= 10
    for i, run in enumerate(runs):
        label = f"{run['date'][:10]} {run['commit'][:7]}"
        parts.append(f'<text x="{x(i):.1f}" y="{top + height + 16}" text-anchor="middle" '
                     f'fill="#6b7280" font-size="10">{html.escape(label)}</text>')
    for k, (row, points) in enumerate(sorted(series.items())):
        col = LINE_COLORS[k % len(LINE_COLORS)]
        if len(points) > 1:
            path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v, _ in points)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{col}" '
                         f'stroke-width="2"/>')
        for i, v, met in points:
            fill = col if met else "white"
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.5" fill="{fill}" '
                         f'stroke="{col}" stroke-width="1.5"><title>{html.escape(row)}: '
                         f'{v:.2f}×</title></circle>')
        ly = top + 6 + k * 18
        parts.append(f'<rect x="{left + width + 20}" y="{ly - 9}" width="12" height="3" '
                     f'fill="{col}"/>')
        parts.append(f'<text x="{left + width + 38}" y="{ly}">{html.escape(row)} '
                     f'({points[-1][1]:.2f}×)</text>')
    parts.append(f'<text x="{left}" y="{total_h - 10}" fill="#6b7280" font-size="11">x: recorded '
                 'runs (docs/perf/history.jsonl), oldest first; hollow marker: target missed; '
                 'the 1 KB case as × `true`</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
