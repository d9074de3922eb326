"""Query planning: calendar dates and relative dates become time windows; agent set-up text is
cut out of a pasted prompt."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from recallnest.retrieval.query import clean_query, date_window, plan_query

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def _days(text: str) -> tuple[str, str] | None:
    window = date_window(text, NOW)
    return None if window is None else (window[0].date().isoformat(), window[1].date().isoformat())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What did Maria share on 16 June, 2023?", ("2023-06-16", "2023-06-17")),
        ("what painting did she show on October 13, 2023?", ("2023-10-13", "2023-10-14")),
        ("what did we decide on 2025-03-05", ("2025-03-05", "2025-03-06")),
        ("the 5th of May 2024 outage", ("2024-05-05", "2024-05-06")),
        ("what happened to the job in August 2023?", ("2023-08-01", "2023-09-01")),
        ("2025年3月5日的会议定了什么", ("2025-03-05", "2025-03-06")),
        ("2023年8月发生了什么", ("2023-08-01", "2023-09-01")),
        # Without a year: the latest such day not after now.
        ("the deploy on Mar 3rd", ("2026-03-03", "2026-03-04")),
        ("3月5号那次部署", ("2026-03-05", "2026-03-06")),
        ("what broke on 24 December", ("2025-12-24", "2025-12-25")),
    ],
)
def test_calendar_dates(text: str, expected: tuple[str, str]) -> None:
    assert _days(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("what did John do the week before August 3, 2023?", ("2023-07-27", "2023-08-04")),
        ("the puppy she got two weeks before August 11, 2023", ("2023-07-28", "2023-08-12")),
        ("errors in the 3 days after 2025-03-05", ("2025-03-05", "2025-03-09")),
    ],
)
def test_a_span_anchored_on_a_date(text: str, expected: tuple[str, str]) -> None:
    assert _days(text) == expected


@pytest.mark.parametrize(
    "text",
    ["returns 12 may be null", "we may 3x the pool", "port 8000", "see PR 2023", "v2025.1"],
)
def test_numbers_that_are_not_dates(text: str) -> None:
    assert date_window(text, NOW) is None


def test_modal_may_after_a_preposition_is_a_date() -> None:
    assert _days("it has failed since May 3") == ("2026-05-03", "2026-05-04")


def test_relative_dates_still_work() -> None:
    assert _days("what did we decide last week") == ("2026-11-17", "2026-11-28")
    assert _days("上周定了什么") == ("2026-11-17", "2026-11-28")
    assert _days("yesterday's fix") == ("2026-11-30", "2026-12-01")


def test_gemini_setup_text_is_cut_from_a_prompt() -> None:
    prompt = (
        "This is the Gemini CLI. We are setting up the context for our chat.\n"
        "Today's date is Tuesday, June 3, 2025.\nMy operating system is: linux\n"
        "I'm currently working in the directory: /home/dev/infra\n"
        "Here is the folder structure of the current working directories:\n\n"
        "Showing up to 200 items (files + folders).\n\n/home/dev/infra/\n├───charts/\n"
        "└───README.md\n\nwhy did the api pods keep getting killed?"
    )
    assert clean_query(prompt) == "why did the api pods keep getting killed?"
    assert plan_query(prompt, NOW).window is None  # the set-up date is not the question's
