"""The web UI's pages: each asks the daemon over its socket (`call`, the ops of
server.handlers) and returns HTML built with `render`. Pages hold no state and open no database.

GET pages only read (a search counts as a read of its hits, as in the CLI). POST actions change
one thing through the same op the CLI uses, then redirect back (post/redirect/get) with a
message, so reloading never repeats an action.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from recallnest.core.models import AGENTS, CATEGORIES, GLOBAL_SCOPE, STATUSES, TIERS
from recallnest.integrations.harness import for_agent
from recallnest.integrations.webui.render import (
    esc,
    form,
    labelled,
    line,
    meter,
    notice,
    page,
    seg,
    select,
    stacked_bars,
    table,
)

Call = Callable[[str, dict[str, Any]], Any]
SORTS = ("updated", "created", "importance", "accessed", "decay")
PLOT_DAYS = 30
SNIPPET = 220


@dataclass
class Request:
    method: str
    path: str
    query: Mapping[str, str] = field(default_factory=dict)
    form: Mapping[str, list[str]] = field(default_factory=dict)

    def arg(self, name: str) -> str:
        return (self.query.get(name) or "").strip()

    def posted(self, name: str) -> str:
        values = self.form.get(name) or [""]
        return values[0]


@dataclass
class Reply:
    status: int = 200
    body: str = ""
    location: str | None = None


class Pages:
    """One method per page or action; `call(op, args)` reaches the daemon."""

    def __init__(self, call: Call, csrf: str, doctor: Callable[[], list[dict[str, Any]]]) -> None:
        self.call = call
        self.csrf = csrf
        self.doctor_checks = doctor

    def _page(self, title: str, body: str, active: str, req: Request) -> Reply:
        return Reply(body=page(title, notice(req.arg("msg")) + body, self.csrf, active))

    # ---- dashboard -----------------------------------------------------------------------------

    def dashboard(self, req: Request) -> Reply:
        stats = self.call("stats", {"sizes": False})
        status = self.call("daemon.status", {})
        board = self.call("stats.dashboard", {"days": PLOT_DAYS})
        days = _days(PLOT_DAYS)
        body = (
            _counts(stats["counts"])
            + _health(status, stats)
            + '<section class="plots">'
            + stacked_bars(
                "Memories captured per day, by category", days, _series(board["memories_per_day"])
            )
            + stacked_bars("Turns per day, by agent", days, _series(board["turns_per_day"]))
            + line(
                "Database file size over time (daily samples, and now)",
                _sizes(board["size_per_day"], int(stats["file"].get("path_bytes", 0))),
                label=_megabytes,
            )
            + line("Rows stored over time (turns and memories)", _cumulative(board["rows_per_day"]))
            + "</section>"
            + _breakdowns(board)
        )
        return self._page("Dashboard", body, "/", req)

    # ---- memories ------------------------------------------------------------------------------

    def memories(self, req: Request) -> Reply:
        q = req.arg("q")
        explain = req.arg("explain") == "1"
        projects = [p["project"] for p in self.call("projects.list", {}) if p["project"]]
        hits = self._search(req, q, explain) if q else self._find(req)
        rows = [_memory_row(h, explain) for h in hits]
        head = ["memory", "category", "scope", "tier", "status", "updated"]
        if q:
            head = ["memory", "category", "scope", "status", "score"]
        body = (
            _filters(req, projects)
            + f"<p>{len(hits)} {'results' if q else 'memories'}</p>"
            + table(head, rows, "memories")
        )
        return self._page("Memories", body, "/memories", req)

    def _search(self, req: Request, q: str, explain: bool) -> list[dict[str, Any]]:
        args: dict[str, Any] = {"query": q, "kind": "memories", "explain": explain, "limit": 50}
        for name in ("scope", "category", "agent", "since", "until"):
            if req.arg(name):
                args[name] = req.arg(name)
        hits: list[dict[str, Any]] = self.call("search", args)
        return hits

    def _find(self, req: Request) -> list[dict[str, Any]]:
        args: dict[str, Any] = {
            "status": req.arg("status") or "active",
            "sort": req.arg("sort") or "updated",
            "limit": _int(req.arg("limit"), 100),
        }
        for name in ("scope", "category", "tier"):
            if req.arg(name):
                args[name] = req.arg(name)
        if req.arg("agent") in AGENTS:
            args["source"] = f"capture:{req.arg('agent')}"  # what that agent's turns gave
        if req.arg("pinned") in ("yes", "no"):
            args["pinned"] = req.arg("pinned") == "yes"
        if req.arg("since"):
            args["newer_than"] = req.arg("since")
        if req.arg("until"):
            args["older_than"] = req.arg("until")
        found: list[dict[str, Any]] = self.call("memories.find", args)
        return found

    def memory(self, req: Request, mem_id: str) -> Reply:
        ctx = self.call("memories.context", {"id": mem_id})
        m = ctx["memory"]
        body = (
            f'<pre class="text" id="memory-text">{esc(m["text"])}</pre>'
            + _facts(m)
            + self._correct(m)
            + _history(ctx)
            + _evidence(ctx["evidence_turns"])
            + _neighbours(ctx["neighbours"])
        )
        return self._page("Memory", body, "/memories", req)

    def _correct(self, m: Mapping[str, Any]) -> str:
        base = f"/memory/{seg(m['id'])}"
        edit = form(
            base + "/edit",
            self.csrf,
            labelled(
                "Text",
                f'<textarea name="text" id="f-text" rows="4">{esc(m["text"])}</textarea>',
                "text",
            )
            + labelled(
                "Scope", f'<input name="scope" id="f-scope" value="{esc(m["scope"])}">', "scope"
            )
            + labelled(
                "Category", select("category", CATEGORIES, m["category"], blank=""), "category"
            )
            + "<button>Save edit</button>",
            "stack",
        )
        flags = form(
            base + "/flags",
            self.csrf,
            f'<input type="hidden" name="pinned" value="{"no" if m["pinned"] else "yes"}">'
            + f"<button>{'Unpin' if m['pinned'] else 'Pin'}</button>",
        ) + form(
            base + "/flags",
            self.csrf,
            labelled("Tier", select("tier", TIERS, m["tier"], blank=""), "tier")
            + labelled(
                "Valid until",
                f'<input name="valid_until" id="f-valid_until" placeholder="2027-01-31 or 30d" '
                f'value="{esc((m.get("valid_until") or "")[:10])}">',
                "valid_until",
            )
            + "<button>Set</button>",
        )
        forget = form(
            base + "/forget",
            self.csrf,
            '<button class="danger" data-confirm="Forget this memory? It cannot be undone.">'
            "Forget</button>",
        )
        if m["status"] == "pending":
            approve = form(base + "/approve", self.csrf, '<button id="approve">Approve</button>')
            state = "<p>This capture waits for approval: search and resume skip it until then."
            state += " Saving an edit approves the corrected text.</p>"
            actions = f"<div class=row>{approve}{forget}</div>"
            return f"<section><h2>Review it</h2>{state}{edit}{actions}</section>"
        if m["status"] != "active":
            state = f"<p>This memory is {esc(m['status'])}.</p>"
            return f"<section><h2>Correct it</h2>{state}{forget}</section>"
        return f"<section><h2>Correct it</h2>{edit}<div class=row>{flags}{forget}</div></section>"

    def edit(self, req: Request, mem_id: str) -> Reply:
        args = {
            "id": mem_id,
            "text": req.posted("text"),
            "scope": req.posted("scope").strip() or None,
            "category": req.posted("category") or None,
        }
        done = self.call("memories.edit", args)
        msg = "edited: this is the corrected memory" if done["edited"] else "nothing changed"
        return _back(f"/memory/{seg(done['id'])}", msg)

    def flags(self, req: Request, mem_id: str) -> Reply:
        args: dict[str, Any] = {"ids": [mem_id]}
        if req.posted("pinned") in ("yes", "no"):
            args["pinned"] = req.posted("pinned") == "yes"
        if req.posted("tier"):
            args["tier"] = req.posted("tier")
        if "valid_until" in req.form:
            until = req.posted("valid_until").strip()
            args["valid_until" if until else "clear_valid_until"] = until or True
        done = self.call("memories.flags", args)
        return _back(f"/memory/{seg(mem_id)}", "saved" if done["changed"] else "nothing changed")

    def forget(self, req: Request, mem_id: str) -> Reply:
        done = self.call("forget.run", {"ids": [mem_id]})
        n = _forgot_count(done)  # with the older versions it replaced, as the CLI's forget
        return _back("/memories", f"forgotten: {n} {'memory' if n == 1 else 'memories'}")

    # ---- review, conflicts, undo ---------------------------------------------------------------

    def review(self, req: Request) -> Reply:
        """Captures waiting for approval (the review_captures setting) first, then the recent
        active ones: approve, open to edit, or reject, one by one or selected in bulk."""
        held = self.call("memories.find", {"sort": "created", "limit": 200, "status": "pending"})
        recent = self.call("memories.find", {"sort": "created", "limit": 60, "status": "active"})
        rows = [_review_row(m) for m in [*held, *recent]]
        undo = self.call("undo.list", {})
        body = (
            f"<p><strong id=held>{len(held)}</strong> waiting for approval (captured while the "
            "<code>review_captures</code> setting is on), then recent captures, newest first. "
            "Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>x</kbd> select, <kbd>a</kbd> select "
            "all, <kbd>Shift+A</kbd> approve, <kbd>Shift+R</kbd> reject the selected.</p>"
            + form(
                "/review/reject",
                self.csrf,
                table(["", "memory", "status", "category", "rule", "captured"], rows, "review")
                + '<div class="inline"><button id="approve" formaction="/review/approve">'
                "Approve selected</button>"
                '<button class="danger" id="reject" data-confirm="Forget the selected '
                'memories?">Reject selected</button></div>',
                "stack review-form",
            )
            + _undo_list(undo, self.csrf)
        )
        return self._page("Review", body, "/review", req)

    def approve(self, req: Request) -> Reply:
        ids = [i for i in req.form.get("ids", []) if i]
        if not ids:
            return _back("/review", "nothing selected")
        done = self.call("memories.approve", {"ids": ids})
        return _back("/review", f"approved: {len(done['approved'])}")

    def approve_one(self, req: Request, mem_id: str) -> Reply:
        done = self.call("memories.approve", {"ids": [mem_id]})
        return _back(f"/memory/{seg(mem_id)}", "approved" if done["approved"] else "not pending")

    def reject(self, req: Request) -> Reply:
        ids = [i for i in req.form.get("ids", []) if i]
        if not ids:
            return _back("/review", "nothing selected")
        done = self.call("forget.run", {"ids": ids})
        return _back("/review", f"rejected: {_forgot_count(done)} forgotten")

    def undo(self, req: Request) -> Reply:
        done = self.call("undo", {"id": _int(req.posted("id"), 0)})
        return _back("/review", f"undone: {done['kind']}, {done['restored']} restored")

    def conflicts(self, req: Request) -> Reply:
        found = self.call("conflicts.list", {})
        parts = [
            "<article class=conflict>"
            f"<p>{esc(c['category'])} in {esc(c['scope'])}: {esc(c['reason'])}</p>"
            f'<div class=sides><pre class="text">{esc(c["a_text"])}</pre>'
            f'<pre class="text">{esc(c["b_text"])}</pre></div>'
            + form(
                f"/conflicts/{seg(c['id'])}",
                self.csrf,
                '<button name="keep" value="older">Keep older (left)</button>'
                '<button name="keep" value="newer">Keep newer (right)</button>'
                '<button name="keep" value="both">Keep both</button>',
            )
            + "</article>"
            for c in found
        ]
        body = "".join(parts) or "<p>No open conflicts.</p>"
        return self._page("Conflicts", body, "/conflicts", req)

    def resolve(self, req: Request, conflict_id: str) -> Reply:
        self.call("conflicts.resolve", {"id": _int(conflict_id, -1), "keep": req.posted("keep")})
        return _back("/conflicts", f"settled: kept {req.posted('keep')}")

    # ---- sessions, resume, doctor ---------------------------------------------------------------

    def sessions(self, req: Request) -> Reply:
        projects = [p["project"] for p in self.call("projects.list", {}) if p["project"]]
        project = req.arg("project") or None
        found = self.call("sessions.list", {"project": project, "limit": 200})
        rows = [
            [
                f'<a href="/session/{esc(seg(s["session_id"]))}">{esc(s["session_id"][:12])}</a>',
                esc(s["agent"]),
                esc(s["project"]),
                esc((s["started_at"] or "")[:16]),
                esc((s["ended_at"] or "")[:16]),
                esc(s["turns"]),
            ]
            for s in found
        ]
        pick = (
            '<form method="get" class="inline">'
            + labelled("Project", select("project", projects, project), "project")
            + "<button>Show</button></form>"
        )
        body = pick + table(["session", "agent", "project", "started", "last turn", "turns"], rows)
        return self._page("Sessions", body, "/sessions", req)

    def session(self, req: Request, session_id: str) -> Reply:
        s = self.call("sessions.show", {"session_id": session_id})
        turns = "".join(
            f'<article class="turn {esc(t["role"])}"><header>{esc(t["role"])} · '
            f"{esc(t['agent'])} · {esc(str(t['timestamp'] or '')[:19])}</header>"
            f'<pre class="text">{esc(t["text"])}</pre></article>'
            for t in s["turns"]
        )
        cp = s["checkpoint"]
        checkpoint = (
            f'<section><h2>Checkpoint</h2><pre class="text">{esc(_checkpoint_text(cp))}</pre>'
            "</section>"
            if cp
            else ""
        )
        mems = table(
            ["memory", "category", "status"],
            ([_memory_link(m), esc(m["category"]), esc(m["status"])] for m in s["memories"]),
        )
        body = (
            checkpoint
            + f"<section><h2>Memories captured ({len(s['memories'])})</h2>{mems}</section>"
            + f"<section><h2>Turns ({len(s['turns'])})</h2>{turns}</section>"
        )
        return self._page(f"Session {session_id[:12]}", body, "/sessions", req)

    def resume(self, req: Request) -> Reply:
        projects = [p["project"] for p in self.call("projects.list", {}) if p["project"]]
        project = req.arg("project") or (projects[0] if projects else "")
        agent = req.arg("agent") if req.arg("agent") in AGENTS else "claude"
        pick = (
            '<form method="get" class="inline">'
            + labelled("Project", select("project", projects, project, blank=""), "project")
            + labelled("Agent", select("agent", AGENTS, agent, blank=""), "agent")
            + "<button>Preview</button></form>"
        )
        if not project:
            return self._page("Resume preview", pick + "<p>No project yet.</p>", "/resume", req)
        result = self.call(
            "resume", {"cwd": project, "agent": agent, "source": "startup", "record": False}
        )
        shown = for_agent(agent).render(result["text"])
        body = (
            pick + f"<p>What the {esc(agent)} session-start hook would inject now for "
            f"{esc(result['project'])}: <strong id=tokens>{esc(result['tokens'])}</strong> tokens, "
            f"{len(result['items'])} items.</p>"
            + f'<pre class="text" id="resume-text">{esc(shown)}</pre>'
        )
        return self._page("Resume preview", body, "/resume", req)

    def doctor(self, req: Request) -> Reply:
        rows = [
            [("✓ ok" if c["ok"] else "✗ problem"), esc(c["name"]), esc(c["detail"])]
            for c in self.doctor_checks()
        ]
        return self._page("Doctor", table(["", "check", "detail"], rows), "/doctor", req)


# ---- pieces ------------------------------------------------------------------------------------


def _back(path: str, message: str) -> Reply:
    return Reply(status=303, location=f"{path}?{_msg(message)}")


def _msg(message: str) -> str:
    from urllib.parse import urlencode

    return urlencode({"msg": message})


def _int(value: str, default: int) -> int:
    try:
        return int(value)
    except ValueError:
        return default


def _snip(text: str) -> str:
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"


def _forgot_count(done: Mapping[str, Any]) -> int:
    return len(done.get("forgotten") or [])


def _days(n: int) -> list[str]:
    today = datetime.now(UTC).date()
    return [(today - timedelta(days=n - 1 - i)).isoformat() for i in range(n)]


def _series(rows: list[list[Any]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for day, key, n in rows:
        out[str(key)][str(day)] = int(n)
    return out


def _cumulative(rows: list[list[Any]]) -> list[tuple[str, int]]:
    total, out = 0, []
    for day, n in rows:
        total += int(n)
        out.append((str(day), total))
    return out


def _sizes(samples: list[dict[str, Any]], now_bytes: int) -> list[tuple[str, int]]:
    today = datetime.now(UTC).date().isoformat()
    points = [(str(s["day"]), int(s["bytes"])) for s in samples if s["day"] != today]
    return [*points, (today, now_bytes)]


def _megabytes(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def _counts(counts: Mapping[str, int]) -> str:
    shown = ("memories", "active_memories", "turns", "sessions", "checkpoints", "files")
    cells = "".join(
        f"<div><b>{int(counts.get(k, 0)):,}</b><span>{esc(k.replace('_', ' '))}</span></div>"
        for k in shown
    )
    return f'<section class="counts">{cells}</section>'


def _health(status: Mapping[str, Any], stats: Mapping[str, Any]) -> str:
    emb = stats["embedder"]
    failing = status.get("failing") or status.get("maintenance_failing")
    state = "failing" if failing else "running"
    queued = stats["counts"].get("capture_queued", 0)
    lag = f"{status.get('queued', 0)} files queued, {queued} turns awaiting capture"
    rows = [
        [
            "daemon",
            f'<span class="state {state}">{esc(state)}</span> pid {esc(status.get("pid"))}, '
            f"up {esc(_uptime(status.get('uptime_seconds')))}",
        ],
        ["lag behind transcripts", esc(lag)],
        [
            "last error",
            esc(status.get("last_error") or "none")
            + (f" ({esc(status.get('last_error_at'))})" if status.get("last_error_at") else ""),
        ],
        [
            "embedder",
            esc(emb.get("model") or "none")
            + (f" — {esc(emb['error'])}" if emb.get("error") else ""),
        ],
        [
            "embedding progress",
            meter(int(emb.get("rows_with_vectors") or 0), int(emb.get("rows") or 0)),
        ],
        ["database size", esc(f"{int(stats['file'].get('path_bytes', 0)) / 1e6:,.1f} MB")],
    ]
    return "<section><h2>Health</h2>" + table(["", ""], rows, "facts") + "</section>"


def _uptime(seconds: object) -> str:
    s = int(float(str(seconds or 0)))
    return f"{s // 3600}h {s // 60 % 60}m" if s >= 60 else f"{s}s"


def _breakdowns(board: Mapping[str, Any]) -> str:
    pivot: dict[str, dict[str, int]] = defaultdict(dict)
    for category, status, n in board["memories_by_category_status"]:
        pivot[str(category)][str(status)] = int(n)
    mem_rows = [[esc(c), *(f"{pivot[c].get(s, 0):,}" for s in STATUSES)] for c in sorted(pivot)]
    agents = sorted(set(board["turns_by_agent"]) | set(board["sessions_by_agent"]))
    agent_rows = [
        [
            esc(a),
            f"{board['sessions_by_agent'].get(a, 0):,}",
            f"{board['turns_by_agent'].get(a, 0):,}",
        ]
        for a in agents
    ]
    return (
        '<section class="row"><div><h2>Memories by category and status</h2>'
        + table(["category", *STATUSES], mem_rows)
        + "</div><div><h2>Sessions per agent</h2>"
        + table(["agent", "sessions", "turns"], agent_rows)
        + '</div></section><p><a href="/doctor">Doctor: hooks registered and trusted per '
        "agent</a></p>"
    )


def _filters(req: Request, projects: list[str]) -> str:
    scopes = [GLOBAL_SCOPE, *projects]
    explain = " checked" if req.arg("explain") == "1" else ""
    return (
        '<form method="get" class="filters" role="search">'
        + labelled(
            "Search",
            f'<input type="search" name="q" id="f-q" value="{esc(req.arg("q"))}" autofocus>',
            "q",
        )
        + f'<label><input type="checkbox" name="explain" value="1"{explain}> explain</label>'
        + labelled("Scope", select("scope", scopes, req.arg("scope")), "scope")
        + labelled("Category", select("category", CATEGORIES, req.arg("category")), "category")
        + labelled("Agent", select("agent", AGENTS, req.arg("agent")), "agent")
        + labelled("Status", select("status", STATUSES, req.arg("status"), blank=""), "status")
        + labelled("Tier", select("tier", TIERS, req.arg("tier")), "tier")
        + labelled("Pinned", select("pinned", ("yes", "no"), req.arg("pinned")), "pinned")
        + labelled(
            "From",
            f'<input name="since" id="f-since" placeholder="30d" value="{esc(req.arg("since"))}">',
            "since",
        )
        + labelled(
            "To",
            f'<input name="until" id="f-until" placeholder="2026-12-31" '
            f'value="{esc(req.arg("until"))}">',
            "until",
        )
        + labelled("Sort", select("sort", SORTS, req.arg("sort"), blank=""), "sort")
        + "<button>Go</button></form>"
        + "<p class=hint>Search uses the CLI's fused ranking; tier, pinned and sort apply to "
        "the list only. On the list, agent means captured from that agent's turns.</p>"
    )


def _memory_link(m: Mapping[str, Any]) -> str:
    return f'<a href="/memory/{esc(seg(m["id"]))}">{esc(_snip(str(m["text"])))}</a>'


def _memory_row(m: Mapping[str, Any], explain: bool) -> list[str]:
    pin = ' <span class="pin" title="pinned">📌</span>' if m.get("pinned") else ""
    link = _memory_link(m) + pin
    if "score" not in m:
        return [
            link,
            esc(m["category"]),
            esc(m["scope"]),
            esc(m["tier"]),
            esc(m["status"]),
            esc((m["updated_at"] or "")[:10]),
        ]
    why = ""
    if explain and m.get("explain"):
        ex = m["explain"]
        ranks = ", ".join(f"{k} #{v}" for k, v in ex["ranks"].items())
        parts = ", ".join(f"{k} {v:+.4f}" for k, v in ex["parts"].items())
        why = (
            f'<details class="explain"><summary>why</summary>ranks: {esc(ranks)}<br>'
            f"parts: {esc(parts)}</details>"
        )
    return [
        link + why,
        esc(m["category"]),
        esc(m["scope"]),
        esc(m["status"]),
        f"{float(m['score']):.4f}",
    ]


def _facts(m: Mapping[str, Any]) -> str:
    names = (
        "id",
        "scope",
        "category",
        "status",
        "tier",
        "pinned",
        "importance",
        "confidence",
        "source",
        "rule",
        "created_at",
        "updated_at",
        "last_accessed_at",
        "access_count",
        "valid_until",
        "superseded_by",
    )
    rows = []
    for n in names:
        value = m.get(n)
        cell = esc(value)
        if n == "superseded_by" and value:
            cell = f'<a href="/memory/{esc(seg(value))}">{esc(value)}</a>'
        rows.append([esc(n.replace("_", " ")), cell])
    return table(["", ""], rows, "facts")


def _history(ctx: Mapping[str, Any]) -> str:
    versions = [
        [_memory_link(m), esc(m["status"]), esc((m["updated_at"] or "")[:16])]
        for m in [*ctx["replaced"], *ctx["replaced_by"]]
    ]
    events = [
        [esc((e["at"] or "")[:19]), esc(e["kind"]), esc(e["memory_id"]), esc(e["other_id"])]
        for e in ctx["events"]
    ]
    return (
        "<section><h2>History</h2>"
        + (
            table(["version", "status", "updated"], versions)
            if versions
            else "<p>No other versions.</p>"
        )
        + (table(["at", "event", "memory", "other"], events) if events else "")
        + "</section>"
    )


def _evidence(turns: list[dict[str, Any]]) -> str:
    if not turns:
        return (
            "<section><h2>Where it came from</h2><p>No source turns (added by hand or "
            "imported).</p></section>"
        )
    items = "".join(
        f'<article class="turn {esc(t["role"])}"><header>{esc(t["role"])} · {esc(t["agent"])} · '
        f'<a href="/session/{esc(seg(t["session_id"]))}">'
        f"session {esc(str(t['session_id'])[:12])}</a> · "
        f"{esc(str(t['timestamp'] or '')[:19])}</header>"
        f'<pre class="text">{esc(t["text"])}</pre></article>'
        for t in turns
    )
    return f"<section><h2>Where it came from</h2>{items}</section>"


def _review_row(m: Mapping[str, Any]) -> list[str]:
    return [
        f'<input type="checkbox" name="ids" value="{esc(m["id"])}" aria-label="select memory">',
        _memory_link(m),
        f'<span class="state {esc(m["status"])}">{esc(m["status"])}</span>',
        esc(m["category"]),
        esc(m["rule"] or m["source"]),
        esc((m["created_at"] or "")[:16]),
    ]


def _neighbours(hits: list[dict[str, Any]]) -> str:
    rows = [
        [_memory_link(h), esc(h["scope"]), esc(h["category"]), f"{float(h['score']):.4f}"]
        for h in hits
    ]
    shown = table(["memory", "scope", "category", "score"], rows, "neighbours")
    return "<section><h2>Neighbours</h2>" + (shown if rows else "<p>None.</p>") + "</section>"


def _undo_list(entries: list[dict[str, Any]], csrf: str) -> str:
    if not entries:
        return "<section><h2>Undo automatic changes</h2><p>Nothing to undo.</p></section>"
    rows = [
        [
            esc(str(e["created_at"])[:16]),
            esc(e["kind"]),
            esc(e["summary"]),
            esc(e["memories"]),
            form(
                "/undo",
                csrf,
                f'<input type="hidden" name="id" value="{esc(e["id"])}"><button>Undo</button>',
            ),
        ]
        for e in entries
    ]
    return (
        "<section><h2>Undo automatic changes</h2>"
        + table(["when", "kind", "summary", "memories", ""], rows)
        + "</section>"
    )


def _checkpoint_text(cp: Mapping[str, Any]) -> str:
    return "\n".join(f"{k}: {v}" for k, v in cp.items() if v not in (None, "", [], {}))
