"""The failure classes still open on the blind held-out sets at round 37 (eval/RESULTS.md,
"Round 37"), each tested on variants of its own, both ways: work put off to a named later
time, where an interrupted session stopped, a correction's scope, and a retention count said
inside a request."""

from __future__ import annotations

import pytest
from test_heldout2_classes import PROJECT, captures, checkpoint, session
from test_heldout7_classes import remembered

# --------------------------------------------------------------------------- put off to later


@pytest.mark.parametrize(
    ("proposal", "deferral", "detail"),
    [
        (
            "It loads every row into memory. I'll stream the rows with a server-side cursor "
            "instead.",
            "ok, tackle it next week. Begin with exporter/stream.py.",
            "exporter/stream.py",
        ),
        (
            "The retries hammer the API. I'll add jittered backoff to the client.",
            "Sure, do that tomorrow.",
            "",
        ),
    ],
)
def test_work_put_off_to_a_named_later_time_is_the_next_step(
    proposal: str, deferral: str, detail: str
) -> None:
    cp = checkpoint(session("The nightly export is slow on big tenants.", proposal, deferral))
    assert cp is not None
    steps = " ".join(cp.next_actions)
    assert proposal.split(". ")[-1].rstrip(".") in steps, cp
    assert detail in steps
    assert not any(loop.startswith("Unanswered") for loop in cp.open_loops), cp.open_loops
    assert not cp.interrupted


def test_doing_it_now_is_no_next_step() -> None:
    cp = checkpoint(
        session(
            "The nightly export is slow on big tenants.",
            "I'll stream the rows with a server-side cursor instead.",
            "ok, do that now.",
        )
    )
    assert cp is not None and not cp.next_actions, cp


# --------------------------------------------------------------------------- where it stopped


@pytest.mark.parametrize(
    ("said", "instruction", "started"),
    [
        (
            (
                "the importer drops rows that start with a BOM",
                "The reader opens the file as utf-8, so the BOM sticks to the first header.",
                "switch it to utf-8-sig and log how many rows were skipped, at warning level",
                "OK, starting with importer/reader.py, then the skip counter.",
            ),
            "warning level",
            "importer/reader.py",
        ),
        (
            (
                "上传接口偶尔超时，看下 nginx 配置。",
                "client_max_body_size 只有 1m，大文件会被直接拒掉。",
                "改成 50m，超时也拉到 120 秒，别动 keepalive。",
                "好，我先改 deploy/nginx/upload.conf，再跑一遍压测。",
            ),
            "别动 keepalive",
            "deploy/nginx/upload.conf",
        ),
    ],
)
def test_an_interrupted_session_says_where_it_stopped(
    said: tuple[str, ...], instruction: str, started: str
) -> None:
    cp = checkpoint(session(*said))
    assert cp is not None and cp.interrupted
    stopped = [loop for loop in cp.open_loops if loop.startswith("Stopped at:")]
    assert stopped and instruction in stopped[0] and started in stopped[0], cp.open_loops


def test_a_session_that_ends_on_a_report_did_not_stop_mid_task() -> None:
    cp = checkpoint(
        session(
            "the importer drops rows that start with a BOM",
            "Switched the reader to utf-8-sig; all importer tests pass.",
        )
    )
    assert cp is not None and not cp.interrupted
    assert not any(loop.startswith("Stopped at:") for loop in cp.open_loops)
