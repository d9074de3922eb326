"""Settings resolution: flags > RECALLNEST_* environment > config.toml > defaults."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from recallnest.core.config import Settings
from recallnest.core.errors import ConfigError
from recallnest.core.paths import CONFIG_NAME
from recallnest.store import DB_MEMORY_MB
from recallnest.store.connection import _connect


def write_toml(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / CONFIG_NAME).write_text(text, encoding="utf-8")


def env_of(home: Path, **extra: str) -> dict[str, str]:
    return {"RECALLNEST_HOME": str(home), "HOME": str(home.parent), **extra}


def test_defaults(tmp_path: Path) -> None:
    s = Settings.load(env=env_of(tmp_path / "state"))
    assert s.home == tmp_path / "state"
    assert s.embedder == "local"
    assert s.fusion_alpha == 0.5
    assert s.resume_budget_tokens == 1200
    assert s.extra_roots == ()
    assert s.polling is False
    assert s.embed_url is None and s.embed_model is None and s.embed_api_key is None


def test_agent_dirs_default_under_home(tmp_path: Path) -> None:
    s = Settings.load(env={"RECALLNEST_HOME": str(tmp_path / "s"), "HOME": str(tmp_path)})
    assert s.claude_dir == tmp_path / ".claude"
    assert s.codex_dir == tmp_path / ".codex"
    assert s.gemini_dir == tmp_path / ".gemini"


def test_agent_relocation_variables_are_honoured(tmp_path: Path) -> None:
    env = env_of(
        tmp_path / "s",
        CLAUDE_CONFIG_DIR="/c/claude",
        CODEX_HOME="/x/codex",
        GEMINI_CLI_HOME="/g",
    )
    s = Settings.load(env=env)
    assert s.claude_dir == Path("/c/claude")
    assert s.codex_dir == Path("/x/codex")
    # GEMINI_CLI_HOME replaces the user's home; .gemini lives under it.
    assert s.gemini_dir == Path("/g/.gemini")


def test_toml_overrides_defaults(tmp_path: Path) -> None:
    home = tmp_path / "state"
    write_toml(home, 'embedder = "none"\nfusion_alpha = 0.25\nextra_roots = ["/a", "/b"]\n')
    s = Settings.load(env=env_of(home))
    assert s.embedder == "none"
    assert s.fusion_alpha == 0.25
    assert s.extra_roots == ("/a", "/b")


def test_env_overrides_toml(tmp_path: Path) -> None:
    home = tmp_path / "state"
    write_toml(home, 'embedder = "none"\nfusion_alpha = 0.25\n')
    env = env_of(
        home,
        RECALLNEST_EMBEDDER="hash",
        RECALLNEST_FUSION_ALPHA="0.75",
        RECALLNEST_EXTRA_ROOTS=os.pathsep.join(["/one", "/two"]),
        RECALLNEST_POLLING="true",
    )
    s = Settings.load(env=env)
    assert s.embedder == "hash"
    assert s.fusion_alpha == 0.75
    assert s.extra_roots == ("/one", "/two")
    assert s.polling is True


def test_flags_override_env_and_toml(tmp_path: Path) -> None:
    home = tmp_path / "state"
    write_toml(home, 'embedder = "none"\n')
    env = env_of(home, RECALLNEST_EMBEDDER="hash")
    s = Settings.load(flags={"embedder": "jina", "fusion_alpha": None}, env=env)
    assert s.embedder == "jina"
    assert s.fusion_alpha == 0.5  # a None flag is "not given"


def test_home_flag_wins_and_its_toml_is_read(tmp_path: Path) -> None:
    env_home, flag_home = tmp_path / "env", tmp_path / "flag"
    write_toml(env_home, 'embedder = "none"\n')
    write_toml(flag_home, 'embedder = "hash"\n')
    s = Settings.load(flags={"home": flag_home}, env=env_of(env_home))
    assert s.home == flag_home
    assert s.embedder == "hash"


def test_home_flag_none_falls_back_to_env(tmp_path: Path) -> None:
    s = Settings.load(flags={"home": None}, env=env_of(tmp_path / "e"))
    assert s.home == tmp_path / "e"


def test_recallnest_home_is_not_read_as_a_setting(tmp_path: Path) -> None:
    # RECALLNEST_HOME chooses where config.toml lives; it is not a plain env setting, so a
    # home flag still beats it.
    s = Settings.load(flags={"home": tmp_path / "f"}, env=env_of(tmp_path / "e"))
    assert s.home == tmp_path / "f"


def test_load_reads_os_environ_by_default(recallnest_home: Path) -> None:
    # The autouse fixture points RECALLNEST_HOME at a temporary directory.
    s = Settings.load()
    assert s.home == recallnest_home
    assert s.embedder == "hash"


def test_unknown_toml_key_is_a_config_error(tmp_path: Path) -> None:
    home = tmp_path / "state"
    write_toml(home, 'embedder = "hash"\nembeder = "typo"\n')
    with pytest.raises(ConfigError, match="embeder"):
        Settings.load(env=env_of(home))


def test_malformed_toml_is_a_config_error(tmp_path: Path) -> None:
    home = tmp_path / "state"
    write_toml(home, "embedder = \n")
    with pytest.raises(ConfigError, match=CONFIG_NAME):
        Settings.load(env=env_of(home))


@pytest.mark.parametrize(
    ("source", "key"),
    [
        ("env", "fusion_alpha"),
        ("toml", "fusion_alpha"),
        ("env", "resume_budget_tokens"),
        ("toml", "resume_budget_tokens"),
        ("env", "polling"),
    ],
)
def test_invalid_value_names_the_key(tmp_path: Path, source: str, key: str) -> None:
    home = tmp_path / "state"
    bad = {"fusion_alpha": "1.5", "resume_budget_tokens": "5", "polling": "maybe"}[key]
    env = env_of(home)
    if source == "env":
        env["RECALLNEST_" + key.upper()] = bad
    else:
        value = f'"{bad}"' if key == "polling" else bad
        write_toml(home, f"{key} = {value}\n")
    with pytest.raises(ConfigError, match=key) as info:
        Settings.load(env=env)
    assert "\n" not in str(info.value)


def test_invalid_flag_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="fusion_alpha"):
        Settings.load(flags={"fusion_alpha": -1}, env=env_of(tmp_path / "s"))


def test_unknown_flag_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nonsense"):
        Settings.load(flags={"nonsense": 1}, env=env_of(tmp_path / "s"))


def test_settings_are_frozen(tmp_path: Path) -> None:
    s = Settings.load(env=env_of(tmp_path / "s"))
    with pytest.raises(ValueError):
        s.embedder = "none"  # type: ignore[misc]


def test_db_memory_limit_default_matches_the_store_and_follows_precedence(tmp_path: Path) -> None:
    home = tmp_path / "state"
    assert Settings.load(env=env_of(home)).db_memory_mb == DB_MEMORY_MB
    write_toml(home, "db_memory_mb = 300\n")
    assert Settings.load(env=env_of(home)).db_memory_mb == 300
    env = env_of(home, RECALLNEST_DB_MEMORY_MB="400")
    assert Settings.load(env=env).db_memory_mb == 400
    assert Settings.load(flags={"db_memory_mb": 500}, env=env).db_memory_mb == 500
    with pytest.raises(ConfigError, match="db_memory_mb"):
        Settings.load(flags={"db_memory_mb": 8}, env=env)


def test_the_connection_applies_the_memory_limit(tmp_path: Path) -> None:
    for given in (None, 96):
        path = tmp_path / f"limit-{given}.duckdb"
        con = _connect(path, False) if given is None else _connect(path, False, given)
        try:
            (limit,) = con.execute("SELECT current_setting('memory_limit')").fetchone() or ("",)
        finally:
            con.close()
        assert limit == f"{given or DB_MEMORY_MB}.0 MiB"


def test_the_engine_opens_its_store_with_the_configured_limit(tmp_path: Path) -> None:
    from recallnest.engine import Engine

    home = tmp_path / "rn"
    settings = Settings.load(flags={"db_memory_mb": 200}, env=env_of(home))
    engine = Engine.open(settings, embedder=None)
    try:
        cur = engine.store._cur()
        # Not inside the index load's release, which lowers the limit for a moment.
        with engine.store.evicting:
            (limit,) = cur.execute("SELECT current_setting('memory_limit')").fetchone() or ("",)
    finally:
        engine.close()
    assert limit == "200.0 MiB"
