"""Attack: nothing unredacted is stored anywhere under RECALLNEST_HOME.

Transcripts and memories carrying secrets of many shapes go through every write path (a
backfill with queued capture, live appends continuing a half-written assistant message,
`remember`, the MCP `remember` tool through a real daemon, export, a consolidation's undo
entries), then every file under the home (database, WAL, backups, logs, exports) is read
byte for byte. `audit secrets` must cover every text column the schema has, and
`forget --with-turns --purge` must leave no byte of a forgotten text in the file.

The fake credentials are assembled at run time so that no scanner flags this repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.daemon import DaemonProcess, claude_line

from recallnest.core.config import Settings
from recallnest.core.paths import db_path
from recallnest.server.audit import audit_secrets
from recallnest.store import Store

# One of each class: provider prefixes, assignments in prose / YAML / netrc / INI / .env,
# a key split over two lines, a passphrase, a webhook signing secret, a service-account id.
GITHUB = "ghp_" + "Vb7Nm3Qw9Er5Ty1Ui8Op2As6Df4Gh0Jk3Lzx"
AWS_SECRET = "wJalr" + "XUtnFEMI/K7MDENG/bPxRfiCYzq8Hs2Kd4L"
ADMIN_PW = "Tr0ub4dor" + "&3horse"
NETRC_PW = "qN7" + "vLx2pRt9"
YAML_TOKEN = "c9f2a7" + "Zk41XbQm8LpWv0RtYs3Nd6Hj"
SPLIT_HEAD, SPLIT_TAIL = "glpat-" + "Ab3dE6gH9j", "Kl2mN5pQ8sT1"
PASSPHRASE = "correct-staple" + "-orbit-lantern-42"
CRED_PW = "Hx9" + "mQ2vWp7z"
WHSEC = "whsec_" + "Mz3Xq8Rv1Lk6Wn0Tp5Yb2Hc9Fd4"
KEY_ID = "8f1c3b2a9d" + "4e5f60718293a4b5c6d7e8f901"
DSN_KEY = "3b9e1f" + "c07a4d82e5f6a19b0c3d7e2f4a"  # a token as a URL's user name
SAMPLE_WORD = "Lq4Zt8Wm" + "Example" + "3Rv9Kx2Np6Yc1Hb7"  # a generated value holding "Example"
SECRETS = (
    GITHUB,
    AWS_SECRET,
    ADMIN_PW,
    NETRC_PW,
    YAML_TOKEN,
    SPLIT_HEAD + SPLIT_TAIL,
    SPLIT_TAIL,
    PASSPHRASE,
    CRED_PW,
    WHSEC,
    KEY_ID,
    DSN_KEY,
    SAMPLE_WORD,
)
SAYINGS = (
    f"the narwhal deploy token is {GITHUB}",
    f"narwhal uses key id AKIA{'Q7XW3ERT5YUI9OPL'}/{AWS_SECRET} in prose",
    f"the admin password is {ADMIN_PW} for narwhal",
    f"~/.netrc has: machine git.narwhal.io login ci password {NETRC_PW}",
    f"narwhal config.yaml:\n  auth:\n    token: {YAML_TOKEN}\n",
    f"the narwhal runner token is {SPLIT_HEAD}\n{SPLIT_TAIL}",
    f"narwhal backup passphrase: {PASSPHRASE}",
    f"narwhal credential: password: {CRED_PW}",
    f"narwhal stripe webhook signing secret {WHSEC}",
    f'"private_key_id": "{KEY_ID}" from the narwhal service account',
    f"narwhal errors go to https://{DSN_KEY}@errors.narwhal.io/7",
    f"narwhal release signing secret = {SAMPLE_WORD}",
)


# A word of each saying that survives redaction: the live test waits for each to be searchable.
WORDS = (
    "deploy",
    "prose",
    "admin",
    "netrc",
    "yaml",
    "runner",
    "backup",
    "credential",
    "webhook",
    "account",
    "errors",
    "release",
)


def _found(proc: DaemonProcess, word: str) -> bool:
    hits = proc.ask("search", query=f"narwhal {word}", limit=5)
    return bool(hits) and word in json.dumps(hits).lower()


def leaked(data: bytes) -> list[str]:
    return [s[:10] for s in SECRETS if s.encode() in data]


def files_under(home: Path) -> list[Path]:
    return sorted(p for p in home.rglob("*") if p.is_file() and not p.is_socket())


def assert_home_clean(home: Path) -> None:
    """No file under the home holds a secret byte sequence, and audit finds no row."""
    found = {str(p.relative_to(home)): leaked(p.read_bytes()) for p in files_under(home)}
    assert {k: v for k, v in found.items() if v} == {}
    settings = Settings.load(flags={"home": str(home), "embedder": "hash"})
    assert audit_secrets(settings).findings == []


def assistant_line(session: str, k: int, message_id: str, text: str) -> str:
    record = json.loads(claude_line(session, k, text, role="assistant"))
    record["message"]["id"] = message_id
    return json.dumps(record)


def write_transcript(folder: Path, lines: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "s1.jsonl"
    with path.open("a") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


# ---- the parser state of a half-written assistant message -----------------------------------


def test_parser_state_holds_no_raw_secret(settings: Settings, cli) -> None:
    """An assistant message still open at the end of a read keeps its parts in the cursor's
    parser state; those parts are stored redacted."""
    folder = settings.claude_dir / "projects" / "-work-app"
    lines = [claude_line("s1", 0, "where do the narwhal secrets live?")]
    known = (SAYINGS[0], f"narwhal mail relay: smtp://relay:{ADMIN_PW}@mx.narwhal.io:587")
    lines += [assistant_line("s1", k + 1, "m-open", text) for k, text in enumerate(known)]
    path = write_transcript(folder, lines)
    assert cli(["ingest"]).exit_code == 0
    store = Store(db_path(settings.home), read_only=True)
    try:
        cursor = store.cursor(str(path))
    finally:
        store.close()
    assert cursor is not None and cursor.parser_state and "narwhal" in cursor.parser_state
    assert leaked(cursor.parser_state.encode()) == []


def test_every_path_then_every_file(settings: Settings, cli, tmp_path: Path) -> None:
    folder = settings.claude_dir / "projects" / "-work-app"
    lines = [claude_line("s1", 0, SAYINGS[0])]
    lines += [assistant_line("s1", k + 1, "m-a", t) for k, t in enumerate(SAYINGS[1:5])]
    write_transcript(folder, lines)
    assert cli(["ingest"]).exit_code == 0  # backfill, queued capture
    more = [assistant_line("s1", k + 6, "m-a", t) for k, t in enumerate(SAYINGS[5:])]
    more += [claude_line("s1", 20 + k, t) for k, t in enumerate(SAYINGS)]
    write_transcript(folder, more)  # appended: the next read continues the open message
    assert cli(["ingest"]).exit_code == 0
    for text in SAYINGS:
        assert cli(["remember", text, "--scope", "global"]).exit_code == 0
    assert cli(["export", "-o", str(settings.home / "export.jsonl")]).exit_code == 0
    assert cli(["consolidate"]).exit_code == 0
    # Global memories reach every new session's resume context: masked there too.
    resume = cli(["resume", "--cwd", str(tmp_path), "--agent", "claude"])
    assert resume.exit_code == 0 and "narwhal" in resume.output
    assert leaked(resume.output.encode()) == []
    assert_home_clean(settings.home)


# ---- audit covers every text column of the schema ---------------------------------------------


def test_audit_scans_every_text_column(store: Store) -> None:
    """Discovered from the schema: a new VARCHAR column is covered without editing audit."""

    def text_columns(store: Store) -> list[tuple[str, str]]:
        return [(table, c) for table, (_key, cs) in store.text_schema().items() for c in cs]

    columns = text_columns(store)
    assert ("cursors", "parser_state") in columns and ("capture_queue", "turn_id") in columns
    assert ("turns", "text") in columns and ("memories", "evidence") in columns
    with store.transaction() as tx:
        tx.execute("ALTER TABLE conflicts ADD COLUMN note VARCHAR")
    assert ("conflicts", "note") in text_columns(store)


def test_audit_finds_and_fixes_a_raw_parser_state(settings: Settings, cli) -> None:
    folder = settings.claude_dir / "projects" / "-work-app"
    path = write_transcript(folder, [assistant_line("s1", 0, "m-x", "narwhal hello")])
    assert cli(["ingest"]).exit_code == 0
    store = Store(db_path(settings.home))
    try:
        raw = json.dumps({"v": 1, "open": [["m-x", 0, None, [SAYINGS[0]]]], "nodes": []})
        with store.transaction() as tx:
            tx.execute("UPDATE cursors SET parser_state = ? WHERE path = ?", [raw, str(path)])
    finally:
        store.close()
    found = audit_secrets(settings).findings
    assert [f.table for f in found] == ["cursors"] and leaked(repr(found).encode()) == []
    assert audit_secrets(settings, fix=True).fixed == 1
    assert_home_clean(settings.home)


# ---- purge ------------------------------------------------------------------------------------


WALRUS = "zqxwalrusmarmalade"  # a distinctive word of the forgotten text


def test_purge_leaves_no_byte_of_the_forgotten_text(settings: Settings, cli) -> None:
    folder = settings.claude_dir / "projects" / "-work-app"
    text = f"we decided the {WALRUS} service runs on port 7443, deploy token {GITHUB}"
    lines = [claude_line("s1", 0, "hello there"), assistant_line("s1", 1, "m-w", text)]
    write_transcript(folder, lines)
    assert cli(["ingest"]).exit_code == 0
    assert cli(["remember", f"the {WALRUS} service runs on port 7443"]).exit_code == 0
    control = db_path(settings.home).read_bytes() + _wal(settings.home)
    assert WALRUS.encode() in control  # the check below can fail
    result = cli(["forget", "--session", "s1", "--with-turns", "--purge", "--yes"])
    assert result.exit_code == 0, result.output
    result = cli(["forget", "--query", WALRUS, "--purge", "--yes"])
    assert result.exit_code == 0, result.output
    for path in files_under(settings.home):
        if path.name.startswith("recallnest.duckdb"):
            assert WALRUS.encode() not in path.read_bytes(), path


def _wal(home: Path) -> bytes:
    wal = db_path(home).with_name(db_path(home).name + ".wal")
    return wal.read_bytes() if wal.exists() else b""


# ---- live tail and MCP through a real daemon --------------------------------------------------


@pytest.fixture
def proc(recallnest_home: Path) -> DaemonProcess:
    d = DaemonProcess(recallnest_home.parent / "d")
    yield d  # type: ignore[misc]
    d.stop()


@pytest.mark.slow
def test_live_tail_and_mcp_then_every_file(proc: DaemonProcess) -> None:
    from recallnest.core.paths import socket_path
    from recallnest.integrations import mcp_server

    settings = Settings.load(env=proc.env)
    proc.start()
    folder = settings.claude_dir / "projects" / "-work-app"
    for k, text in enumerate(SAYINGS):  # one line at a time: a live, open assistant message
        write_transcript(folder, [assistant_line("s1", k, "m-live", text)])
        proc.wait_for(lambda w=WORDS[k]: _found(proc, w), f"line {k} merged into the turn")
    tools = mcp_server.Tools(socket_path(proc.home), Path("/work/app"))
    for text in SAYINGS:
        outcome = tools.call("remember", {"text": text, "scope": "global"})
        assert not outcome.is_error and leaked(outcome.text.encode()) == []
    assert proc.stop() == 0
    assert_home_clean(proc.home)
