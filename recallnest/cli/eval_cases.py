"""`recallnest eval cases`: retrieval quality on the coding-agent case set (eval/cases/).

Registers itself on the `eval` group when imported (cli.py imports this module).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from recallnest.cli._app import CONTEXT, emit, eval_group, json_option, settings_in_home

_COLUMNS = ("n", "hit@1", "hit@5", "hit@10", "mrr@10")


@eval_group.command("cases", context_settings=CONTEXT)
@click.option(
    "--cases",
    "cases_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("eval/cases"),
    show_default=True,
    help="Folder holding corpus/*.jsonl, queries.jsonl and (optional) actions.jsonl.",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Reuse passage vectors across runs (tuning); off by default.",
)
@click.option(
    "--disable",
    "disabled",
    multiple=True,
    help="Switch a retrieval stage off (ablation); see `eval locomo --help` for the names.",
)
@json_option
@click.pass_context
def eval_cases(
    ctx: click.Context,
    cases_dir: Path,
    cache_dir: Path | None,
    disabled: tuple[str, ...],
    as_json: bool,
) -> None:
    """Hit@1/5/10 and MRR@10 on coding-agent sessions (EN and ZH), through the real pipeline.

    Also reports where the memories marked by actions.jsonl rank when their questions search
    memories only (the promoted-memories measure; see eval/cases/README.md).

    \b
    recallnest eval cases
    recallnest eval cases --cache-dir ~/.cache/recallnest-eval --json
    """
    from recallnest.evaluation.cases import run

    settings_for = settings_in_home(ctx)

    report = run(
        cases_dir,
        settings_for,
        log=lambda m: click.echo(m, err=True),
        cache_dir=cache_dir,
        disabled=frozenset(disabled),
    )
    emit(report, as_json, print_report)


def print_report(report: dict[str, Any]) -> None:
    corpus = report["corpus"]
    click.echo(
        f"embedder {report['embedder']}; {corpus['turns']} turns in {corpus['sessions']} "
        f"sessions, {corpus['memories_captured']} memories captured"
    )
    click.echo(f"{'group':<22}" + "".join(f"{c:>9}" for c in _COLUMNS))
    rows = [("overall", report["overall"])]
    for section in ("by_type", "by_lang", "by_kind"):
        rows.extend((f"{section[3:]}={name}", m) for name, m in report[section].items())
    for name, m in rows:
        click.echo(f"{name:<22}" + "".join(f"{m.get(c, float('nan')):>9}" for c in _COLUMNS))
    actions = report.get("actions") or {}
    if actions.get("applied") or actions.get("unresolved"):
        unresolved = actions.get("unresolved") or []
        click.echo(
            f"user actions: {len(actions.get('applied') or [])} applied"
            + (f", unresolved {', '.join(unresolved)}" if unresolved else "")
        )
    promoted = report.get("promoted_memories") or {}
    if promoted.get("queries") or promoted.get("unresolved"):
        print_promoted(promoted)
    lat = report["latency_ms"]
    click.echo(
        f"query latency: p50 {lat['p50']} ms, p95 {lat['p95']} ms ({lat['queries']} queries)"
    )
    failures = report["failures"]
    click.echo(f"\nnot in the top 5 ({len(failures)}):")
    for f in failures:
        where = "miss" if f["rank"] is None else f"rank {f['rank']}"
        click.echo(f"- {f['id']} [{f['type']}, {f['lang']}, {f['kind']}] {where}: {f['query']}")
        click.echo(f"    expected {', '.join(f['expected'])}")
        for got in f["got"]:
            click.echo(f"    got {got}")


def print_promoted(promoted: dict[str, Any]) -> None:
    """The promoted-memories measure: where the memories the user marked rank when their
    questions search memories only."""
    click.echo(
        f"promoted memories, memory search (rank of the marked memory, "
        f"up to {promoted['depth']}; - = not found):"
    )
    groups = [("overall", promoted["overall"])]
    groups += [(f"type={name}", m) for name, m in promoted["by_type"].items()]
    for name, m in groups:
        click.echo(
            f"  {name:<20} n {m['n']}, MRR {m['mrr']}, top 5 {m['top5']}/{m['n']}, "
            f"top 10 {m['top10']}/{m['n']}"
        )
    ranks = ", ".join(
        f"{q['id']} {'-' if q['rank'] is None else q['rank']}" for q in promoted["queries"]
    )
    if ranks:
        click.echo(f"  ranks: {ranks}")
    if promoted.get("unresolved"):
        click.echo(f"  not measured (action unresolved): {', '.join(promoted['unresolved'])}")
