"""`recallnest install` then `recallnest doctor`, end to end: real processes, a temp home with
all three agents, a running daemon. Doctor must find what install wrote (the absolute path of
the script, not a bare `recallnest`) and say whether each agent will run the hooks yet.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.daemon import DaemonProcess


@pytest.fixture
def daemon(recallnest_home: Path) -> Iterator[DaemonProcess]:
    proc = DaemonProcess(recallnest_home.parent / "d")
    for folder in (".claude", ".codex", ".gemini"):
        (proc.user / folder).mkdir(parents=True, exist_ok=True)
    # The console script must be found on PATH, as for a user: install writes its path.
    proc.env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{proc.env.get('PATH', '')}"
    proc.start()
    yield proc
    proc.stop()


def run(proc: DaemonProcess, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recallnest", *args],
        env=proc.env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


SETTINGS = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}


@pytest.mark.slow
def test_install_then_doctor_passes_for_all_three_agents(daemon: DaemonProcess) -> None:
    project = daemon.root / "project"
    project.mkdir()
    installed = run(daemon, "install", cwd=project)
    assert installed.returncode == 0, installed.stderr
    script = Path(sys.executable).parent / "recallnest"
    for agent, name in SETTINGS.items():  # install wrote the script's absolute path
        command = f"{script} hook session-start --agent {agent}"
        assert command in (daemon.user / name).read_text()

    doctor = run(daemon, "doctor", "--json", cwd=project)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)}
    assert doctor.returncode == 0, doctor.stdout
    assert checks["hooks"] == {
        "name": "hooks",
        "ok": True,
        "detail": "hooks registered for claude, codex, gemini",
    }
    # Neither Codex nor Gemini will run them yet: a note with the way to fix it, not a failure.
    assert checks["codex-trust"]["note"] and "/hooks" in checks["codex-trust"]["detail"]
    assert checks["gemini-trust"]["note"] and str(project) in checks["gemini-trust"]["detail"]

    human = run(daemon, "doctor", cwd=project).stdout
    assert "ok   hooks: hooks registered for claude, codex, gemini" in human
    assert "note codex-trust: Codex has not trusted the recallnest hooks yet" in human


def doctor_hooks(proc: DaemonProcess, cwd: Path) -> dict[str, object]:
    checks = json.loads(run(proc, "doctor", "--json", cwd=cwd).stdout)
    return next(c for c in checks if c["name"] == "hooks")


@pytest.mark.slow
def test_doctor_fails_when_a_hook_is_missing_or_its_script_is_gone(daemon: DaemonProcess) -> None:
    project = daemon.root / "project"
    project.mkdir()
    assert run(daemon, "install", "--agent", "codex", cwd=project).returncode == 0
    hooks = daemon.user / ".codex" / "hooks.json"
    installed = hooks.read_text()

    doc = json.loads(installed)
    del doc["hooks"]["PreCompact"]
    hooks.write_text(json.dumps(doc))
    check = doctor_hooks(daemon, project)
    assert not check["ok"]
    assert "codex: no recallnest hook for PreCompact" in str(check["detail"])

    hooks.write_text(installed.replace(str(Path(sys.executable).parent), "/gone"))
    check = doctor_hooks(daemon, project)
    assert not check["ok"]
    assert "the hooks run /gone/recallnest, which is not there any more" in str(check["detail"])
