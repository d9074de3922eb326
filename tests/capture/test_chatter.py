"""Pasted output and small talk (`recallnest.capture.chatter`): one definition of each, used by
capture
(nothing pasted becomes a memory) and by checkpoints (nothing pasted or chatty becomes the
request or an open loop). The samples are varied on purpose: runners, package managers, logs
and compilers of several ecosystems, and chit-chat in English and Chinese."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from recallnest.capture.chatter import is_pasted_line, is_small_talk
from recallnest.capture.heuristics import capture_turn
from recallnest.continuity.checkpoint import build_checkpoint
from recallnest.continuity.checkpoint_rules import drop_log_lines
from recallnest.core.models import Turn

T0 = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)

PASTED = [
    # pytest
    "platform darwin -- Python 3.11.9, pytest-7.4.0, pluggy-1.3.0",
    "rootdir: /Users/ana/work/ledger",
    "configfile: pyproject.toml",
    "plugins: anyio-4.2.0, cov-4.1.0",
    "collected 118 items",
    "tests/unit/test_money.py ..s....F.x...",
    "src/ledger/tests/test_io.py::test_roundtrip PASSED",
    "____________________ test_parse_amount[negative] ____________________",
    "tests/unit/test_money.py:57: ValueError",
    ">       assert total == Decimal('10.00')",
    "E       assert Decimal('9.99') == Decimal('10.00')",
    "=========== 2 failed, 116 passed, 3 skipped in 4.02s ===========",
    # jest / vitest
    " FAIL  src/cart/__tests__/total.test.ts",
    "  ● Cart › applies the coupon once",
    "    Expected: 90",
    "    Received: 81",
    "Tests:       1 failed, 23 passed, 24 total",
    " ✓ src/utils/date.test.ts (4 tests) 12ms",
    " Test Files  1 failed | 9 passed (10)",
    # go test
    "--- FAIL: TestRetryAfter (0.02s)",
    "=== RUN   TestRetryAfter/zero_header",
    "    client_test.go:88: got 3 retries, want 2",
    "FAIL\tgithub.com/acme/httpx/client\t0.214s",
    "ok  \tgithub.com/acme/httpx/pool\t0.031s",
    # cargo
    "test parser::tests::handles_empty ... FAILED",
    "test result: FAILED. 41 passed; 1 failed; 0 ignored",
    # cargo's failure report: a dashed header per failed test, the failures list, the values
    "---- codec::tests::round_trip_latin1 stdout ----",
    "failures:",
    "  left: 3",
    "error[E0502]: cannot borrow `buf` as mutable because it is also borrowed as immutable",
    "  --> src/reader.rs:44:9",
    "   Compiling serde_json v1.0.120",
    # compilers
    "src/net/socket.c:212:17: error: 'fd' undeclared (first use in this function)",
    "main.go:14:2: undefined: parseConfig",
    "app/models.ts(31,5): error TS2322: Type 'string' is not assignable to type 'number'.",
    # package managers
    "npm ERR! code ERESOLVE",
    "Collecting requests==2.32.3",
    "Resolved 37 packages in 412ms",
    "Get:3 http://deb.debian.org/debian bookworm/main amd64 libssl3 amd64 3.0.14-1 [2,034 kB]",
    "go: downloading golang.org/x/sync v0.7.0",
    # logs: kubectl, kubelet, docker, systemd, journal, app logs
    "NAME                      READY   STATUS    RESTARTS   AGE",
    "billing-api-5f7d9c-qq8zl  0/1     Pending   0          3m",
    "  Warning  FailedScheduling  40s  default-scheduler  0/3 nodes are available",
    "Normal   Pulled     12s   kubelet   Container image already present on machine",
    "  Last State:     Terminated",
    "    Exit Code:    1",
    "I0901 07:59:58.123456    2231 kubelet.go:2423] SyncLoop (PLEG): event for pod",
    "Sep 01 07:58:11 web-3 systemd[1]: nginx.service: Main process exited, code=exited",
    "Sep  1 07:58:12 web-3 sshd[40211]: Connection closed by 10.0.0.7 port 52110",
    "web_1  | 172.18.0.1 - - GET /health 200",
    'time="2026-09-01T07:57:00Z" level=error msg="upstream timed out"',
    '{"level":"warn","ts":1725177420.5,"msg":"slow query","ms":2311}',
    "2026/09/01 07:56:44 http: TLS handshake error from 10.1.2.3:5000: EOF",
    "[2026-09-01 07:55:01,442] ERROR in app: Exception on /checkout [POST]",
    "12:01:09.004 [main] WARN  o.a.k.clients.NetworkClient - Connection refused",
    " ---> Running in 4c1f2ab93e10",
    "#7 [build 3/6] RUN pip install -r requirements.txt",
    # tracebacks of several languages
    "Traceback (most recent call last):",
    '  File "/srv/app/worker.py", line 77, in run',
    "    at Object.<anonymous> (/app/index.js:12:9)",
    "thread 'main' panicked at src/main.rs:9:5:",
    "goroutine 1 [running]:",
]

PROSE = [
    "The retry loop counted the first attempt as attempt zero.",
    "Fix the broken internal links the link checker reports.",
    "I raised the memory limit to 512Mi and set the request to 384Mi.",
    "We deploy from the main branch with Netlify.",
    "Reason: the cache key ignored the locale.",
    "Note that tests/test_sync.py needs a local HTTP server.",
    "Running the suite twice shows the flake.",
    "Expected behaviour is that the job retries three times.",
    "收到报错后先看 kubelet 的日志。",
    "The logs say the pod was OOMKilled at 03:12.",
]

SMALL_TALK = [
    "lol the weather here is awful, anyway.",
    "It's been raining all week here.",
    "Ugh, rough night, the kids kept us up.",
    "I owe you a beer haha.",
    "Need more coffee before I can think.",
    "Hope you had a nice weekend!",
    "My daughter started school today, so I'm a bit distracted.",
    "Feeling pretty tired today, long week.",
    "How's your day going?",
    "今天天气真差，一直下雨。",
    "昨晚宝宝闹了一夜，没睡好。",
    "哈哈，回头请你喝咖啡。",
    "周末去爬山了，好累。",
]

NOT_SMALL_TALK = [
    "The weather API returns 503 when the city is unknown.",
    "Add a coffee-break reminder to the pomodoro timer in src/timer.ts.",
    "The kids table in the schema needs a parent_id index.",
    "Fix the weekend cron so it skips holidays.",
    "tired of the flaky test, please quarantine test_upload.",
    "把天气接口的超时改成 5 秒。",
    "The old /blog/ URLs from the WordPress days 404 now.",
    "Deploy the staging cluster.",
]


@pytest.mark.parametrize("line", PASTED)
def test_pasted_output_lines_are_recognised(line: str) -> None:
    assert is_pasted_line(line)


@pytest.mark.parametrize("line", PROSE)
def test_prose_is_not_pasted_output(line: str) -> None:
    assert not is_pasted_line(line)


@pytest.mark.parametrize("sentence", SMALL_TALK)
def test_small_talk_is_recognised(sentence: str) -> None:
    assert is_small_talk(sentence)


@pytest.mark.parametrize("sentence", NOT_SMALL_TALK)
def test_work_talk_with_chatty_words_is_not_small_talk(sentence: str) -> None:
    assert not is_small_talk(sentence)


def test_checkpoint_drop_uses_the_shared_definition() -> None:
    text = "\n".join(["The build broke on CI:", *PASTED, "Please look at it."])
    assert drop_log_lines(text).splitlines() == ["The build broke on CI:", "Please look at it."]


def _turn(i: int, role: str, text: str) -> Turn:
    return Turn(
        agent="codex",
        session_id="s9",
        role=role,  # type: ignore[arg-type]
        text=text,
        timestamp=T0 + timedelta(minutes=i),
        path="/tmp/s9.jsonl",
        record_id=f"r{i}",
        offset=i * 100,
        cwd="/home/dev/ledger",
    )


GO_PASTE = (
    "Hey, hope the weekend was good! The CI job is red:\n\n"
    "=== RUN   TestLedgerClose\n"
    "    ledger_test.go:41: balance mismatch: got 9.99 want 10.00\n"
    "--- FAIL: TestLedgerClose (0.00s)\n"
    "FAIL\tgithub.com/acme/ledger\t0.019s\n"
    "2026-09-01T07:40:02Z ERROR worker: job 881 failed after 3 attempts\n"
    "Sep 01 07:40:03 ci-7 dockerd[912]: container exited with code 1"
)


def test_pasted_output_never_becomes_a_memory() -> None:
    captures = capture_turn(_turn(0, "user", GO_PASTE), project="/home/dev/ledger")
    texts = " | ".join(c.text for c in captures)
    for fragment in ("ledger_test.go:41", "TestLedgerClose (0.00s)", "job 881", "dockerd"):
        assert fragment not in texts


def test_checkpoint_request_skips_small_talk_and_pasted_output() -> None:
    turns = [
        _turn(0, "user", GO_PASTE),
        _turn(1, "assistant", "I fixed the rounding in ledger/close.go; the test passes."),
        _turn(
            2,
            "user",
            "Great, thanks, you saved my morning haha. "
            "Still to do: round the totals in the CSV export too.",
        ),
    ]
    cp = build_checkpoint("s9", "codex", "/home/dev/ledger", turns, [], "end", T0)
    assert cp is not None
    blob = " ".join([cp.summary, *cp.open_loops, *cp.next_actions])
    assert "CI job is red" in cp.summary
    assert ":." not in cp.summary  # the colon that introduced the paste is not kept
    for junk in ("weekend", "haha", "saved my morning", "0.019s", "job 881", "dockerd"):
        assert junk not in blob
    assert not any(loop.startswith("Unresolved:") for loop in cp.open_loops)
    assert "CSV export" in blob


def test_small_talk_only_opening_is_not_the_request_zh() -> None:
    turns = [
        _turn(0, "user", "今天天气太热了，哈哈。登录页在 Safari 上白屏了，帮我看看。"),
        _turn(1, "assistant", "Fixed the optional chaining in src/login.ts that Safari 13 lacks."),
    ]
    cp = build_checkpoint("s9", "codex", "/home/dev/ledger", turns, [], "end", T0)
    assert cp is not None
    assert "天气" not in cp.summary
    assert "白屏" in cp.summary
