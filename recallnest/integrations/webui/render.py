"""HTML for the web UI: escaping, the page frame, tables, forms and the inline SVG plots.

Every stored text came from a transcript, which an attacker can write: it goes through `esc`,
which HTML-escapes it (quotes included, so it is safe inside attributes) and makes control
characters (terminal escapes) and bidirectional overrides visible instead of acting on them.
No stored text ever becomes a URL, an attribute name or a script.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from urllib.parse import quote, urlencode

# C0/C1 controls but tab and newline, DEL, and the bidi controls that reorder what is shown.
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
NAV = (
    ("/", "Dashboard"),
    ("/memories", "Memories"),
    ("/review", "Review"),
    ("/conflicts", "Conflicts"),
    ("/sessions", "Sessions"),
    ("/resume", "Resume preview"),
    ("/doctor", "Doctor"),
)
PALETTE = ("#3366cc", "#dc7633", "#2e8b57", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d", "#b7950b")


def esc(value: object) -> str:
    """`value` as inert HTML text."""
    shown = _HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", "" if value is None else str(value))
    return html.escape(shown, quote=True)


def href(path: str, **params: object) -> str:
    """An escaped URL to one of our own pages; ids are quoted as one path segment."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "", False)})
    return esc(path + ("?" + query if query else ""))


def seg(value: object) -> str:
    return quote(str(value), safe="")


def page(title: str, body: str, csrf: str, active: str = "") -> str:
    links = "".join(
        f'<a href="{p}"{" aria-current=page" if p == active else ""}>{esc(name)}</a>'
        for p, name in NAV
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="csrf" content="{esc(csrf)}">'
        f"<title>{esc(title)} · RecallNest</title>"
        '<link rel="stylesheet" href="/static/app.css">'
        '<script src="/static/app.js" defer></script></head><body>'
        '<a class="skip" href="#main">Skip to content</a>'
        f'<nav aria-label="Main"><strong>RecallNest</strong>{links}</nav>'
        f'<main id="main"><h1>{esc(title)}</h1>{body}</main></body></html>'
    )


def table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    """A table; `rows` cells are HTML already (escape text with `esc` first)."""
    th = "".join(f"<th scope=col>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{esc(cls)}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def form(action: str, csrf: str, inner: str, cls: str = "inline") -> str:
    return (
        f'<form method="post" action="{esc(action)}" class="{esc(cls)}">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">{inner}</form>'
    )


def select(name: str, options: Sequence[str], chosen: str | None, blank: str = "any") -> str:
    opts = [f'<option value="">{esc(blank)}</option>'] if blank else []
    opts += [
        f'<option value="{esc(o)}"{" selected" if o == chosen else ""}>{esc(o)}</option>'
        for o in options
    ]
    return f'<select name="{esc(name)}" id="f-{esc(name)}">{"".join(opts)}</select>'


def labelled(label: str, control: str, name: str) -> str:
    return f'<label for="f-{esc(name)}">{esc(label)}</label>{control}'


def notice(message: str | None, kind: str = "ok") -> str:
    return f'<p class="notice {esc(kind)}" role="status">{esc(message)}</p>' if message else ""


def meter(done: int, total: int) -> str:
    share = done / total if total else 1.0
    return (
        f'<progress value="{done}" max="{max(total, 1)}"></progress> '
        f"{done:,} of {total:,} ({share:.0%})"
    )


# ---- plots (inline SVG, drawn here) ------------------------------------------------------------


def stacked_bars(
    title: str, days: Sequence[str], series: Mapping[str, Mapping[str, int]], width: int = 720
) -> str:
    """Per-day stacked bars: `series[key][day]` counts, one colour per key, with a legend."""
    keys = sorted(series)
    totals = [sum(series[k].get(d, 0) for k in keys) for d in days]
    top = max(totals, default=0) or 1
    height, pad, base = 180, 34, 150
    step = (width - pad - 8) / max(len(days), 1)
    bars: list[str] = []
    for i, day in enumerate(days):
        y = float(base)
        x = pad + i * step
        for k, key in enumerate(keys):
            n = series[key].get(day, 0)
            if not n:
                continue
            h = n / top * (base - 10)
            y -= h
            bars.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(step - 2, 1):.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[k % len(PALETTE)]}"><title>{esc(day)} {esc(key)}: {n}</title>'
                "</rect>"
            )
    labels = _day_labels(days, pad, step, base)
    legend = "".join(
        f'<span class="key"><i class="sw{k % len(PALETTE)}"></i>{esc(key)}</span>'
        for k, key in enumerate(keys)
    )
    return (
        f'<figure><figcaption>{esc(title)}</figcaption><svg viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{esc(title)}">'
        f'<text x="2" y="16" class="axis">{top}</text><text x="2" y="{base}" class="axis">0</text>'
        f'<line x1="{pad}" y1="{base}" x2="{width - 8}" y2="{base}" class="rule"/>'
        f"{''.join(bars)}{labels}</svg><div class=legend>{legend}</div></figure>"
    )


def line(
    title: str,
    points: Sequence[tuple[str, int]],
    width: int = 720,
    label: Callable[[int], str] = "{:,}".format,
) -> str:
    """A line over days (x evenly spaced by point); `label` writes the top of the y axis."""
    height, pad, base = 180, 50, 150
    top = max((v for _, v in points), default=0) or 1
    step = (width - pad - 8) / max(len(points) - 1, 1)
    at = [(pad + i * step, base - v / top * (base - 10)) for i, (_, v) in enumerate(points)]
    xy = " ".join(f"{x:.1f},{y:.1f}" for x, y in at)
    # A dot per point, so a single sample (the first day) still shows.
    dots = "".join(
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="dot"><title>{esc(d)}: '
        f"{esc(label(v))}</title></circle>"
        for (x, y), (d, v) in zip(at, points, strict=True)
    )
    days = [d for d, _ in points]
    return (
        f'<figure><figcaption>{esc(title)}</figcaption><svg viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{esc(title)}">'
        f'<text x="2" y="16" class="axis">{esc(label(top))}</text>'
        f'<text x="2" y="{base}" class="axis">0</text>'
        f'<line x1="{pad}" y1="{base}" x2="{width - 8}" y2="{base}" class="rule"/>'
        f'<polyline points="{xy}" class="growth"/>{dots if len(points) <= 90 else ""}'
        f"{_day_labels(days, pad, step, base)}</svg></figure>"
    )


def _day_labels(days: Sequence[str], pad: float, step: float, base: float) -> str:
    if not days:
        return f'<text x="{pad}" y="{base + 20}" class="axis">no data yet</text>'
    every = max(1, len(days) // 6)
    last = len(days) - 1
    end = ' text-anchor="end"'  # the last point sits at the right edge: its label ends there
    return "".join(
        f'<text x="{pad + i * step:.1f}" y="{base + 20}" class="axis"'
        f"{end if i == last and last else ''}>{esc(d[5:])}</text>"
        for i, d in enumerate(days)
        if i % every == 0
    )
