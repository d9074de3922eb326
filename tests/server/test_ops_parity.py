"""Every operation of the socket protocol answers the same through the daemon and without it
(issue 18 item 7: `forgotten` always failed through the daemon, a datetime in its result).

The same scenario, covering each op in ops.OPS, runs against two identically seeded homes: one
through a running daemon's socket, one through the CLI's local fallback (LocalClient). Results
are compared after masking what legitimately differs (times, durations, the daemon's PID)."""

from __future__ import annotations

from pathlib import Path

from support.ops_scenario import SCENARIO, TRANSCRIPT, masked, run, seeded, settings_in

from recallnest.core.paths import socket_path
from recallnest.core.schemas import jsonable
from recallnest.engine import Engine
from recallnest.server import protocol
from recallnest.server.client import LocalClient
from recallnest.server.daemon import Daemon
from recallnest.server.handlers import OPS


def test_the_scenario_covers_every_op() -> None:
    assert {op for op, _ in SCENARIO} == set(OPS)


def test_every_op_answers_the_same_through_the_daemon_and_without_it(
    recallnest_home: Path,
) -> None:
    local_root, daemon_root = recallnest_home.parent / "l", recallnest_home.parent / "d"
    local_settings = settings_in(local_root)
    seeded(local_settings).close()
    local = LocalClient(local_settings)
    try:
        without = run(local.call)
    finally:
        local.close()

    daemon_settings = settings_in(daemon_root)
    daemon = Daemon(daemon_settings, seeded(daemon_settings))
    daemon.start()
    try:
        path = str(socket_path(daemon_settings.home))
        through = run(lambda op, a: protocol.request(path, op, a, 60.0))
    finally:
        daemon.stop()

    assert not any("malformed" in str(r) for kind, r in through if kind == "error")
    for (op, _), a, b in zip(SCENARIO, without, through, strict=True):
        assert masked(a, local_root) == masked(b, daemon_root), op


def test_backfill_reports_the_same_through_the_daemon_and_without_it(
    recallnest_home: Path,
) -> None:
    """`ingest` is served by the daemon itself (not ops.OPS): compared the same way."""
    from recallnest.server.control import backfill

    roots = [str(TRANSCRIPT.parent)]
    local_settings = settings_in(recallnest_home.parent / "l")
    without = backfill(local_settings, "claude", roots, None)
    daemon_settings = settings_in(recallnest_home.parent / "d")
    daemon = Daemon(daemon_settings, Engine.open(daemon_settings))
    daemon.start()
    try:
        through = backfill(daemon_settings, "claude", roots, None)
    finally:
        daemon.stop()
    assert (without.via, through.via) == ("local", "daemon")
    local_root, daemon_root = recallnest_home.parent / "l", recallnest_home.parent / "d"
    local, daemon_side = jsonable(without.backfill), jsonable(through.backfill)
    assert masked(local, local_root) == masked(daemon_side, daemon_root)
    assert without.backfill.new_turns > 0
