"""Capture, round 38: the classes the test split still missed or kept wrongly, each tested on
phrasings of our own (not the set's rows): a workflow the assistant sets down for later, a
change to a new named state reported done, a cause followed by the speaker's change (or
announced as a finding first), and, the other way, an assistant's promise to remember a step."""

from __future__ import annotations

import pytest
from support.capturing import capture

from recallnest.core.models import Capture


def kept(found: list[Capture], category: str, *values: str) -> None:
    assert any(
        c.category == category and all(v.lower() in c.text.lower() for v in values) for c in found
    ), [(c.category, c.rule, c.text) for c in found]


# --------------------------------------------------------------------------- workflows


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "For next time: the integration tests need Redis up first — `make redis`, then "
            "`pytest -m integration`.",
            ("make redis", "pytest -m integration"),
        ),
        (
            "What works for rebuilding the docs here: `make clean`, then `sphinx-build -W docs "
            "build`, then upload build/ to the bucket.",
            ("make clean", "sphinx-build"),
        ),
        (
            "For future releases the safe order is: tag on main, wait for the wheels job, then "
            "publish from CI.",
            ("tag on main", "publish"),
        ),
        (
            "I've set up the flow you asked for: every new endpoint gets an OpenAPI entry, then a "
            "contract test, then the handler.",
            ("OpenAPI", "contract test"),
        ),
        (
            "以后这个项目发版的步骤：先跑 make check，再打 tag，最后在 CI 里点发布。",
            ("make check", "tag"),
        ),
        ("总结一下这次的排查方法：先看慢日志，再用 EXPLAIN 看执行计划。", ("慢日志", "EXPLAIN")),
        (
            "以后 yarn 再报 integrity 校验失败，先清 ~/.yarn/cache 再重装，不要直接删 yarn.lock。",
            ("yarn/cache",),
        ),
    ],
)
def test_a_procedure_set_down_for_later_is_a_workflow(said: str, values: tuple[str, ...]) -> None:
    kept(capture(said, "assistant", previous="ok"), "patterns", *values)


@pytest.mark.parametrize(
    "said",
    [
        "好的，我下次会记得先跑 lint 再提交。",
        "收到，下次我会注意先备份再迁移。",
        "I'll remember to run the formatter, then the linter, before I hand anything back.",
    ],
)
def test_an_assistants_promise_to_remember_a_step_is_no_memory(said: str) -> None:
    assert capture(said, "assistant", previous="ok") == []


def test_a_fact_the_assistant_will_remember_is_still_kept() -> None:
    kept(capture("I'll remember that staging uses port 8443.", "assistant"), "entities", "8443")


# --------------------------------------------------------------------------- changes done


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "Done: renamed the orders.total column to amount_cents in migration 0112 and updated "
            "the two reports that read it.",
            "amount_cents",
        ),
        (
            "Done: migrated the cron jobs from crontab to systemd timers and deleted the old "
            "scripts.",
            "systemd timers",
        ),
        ("Pinned numpy to 1.26.x in requirements.txt so the 2.0 ABI change can't hit us.", "1.26"),
        (
            "Done. Per your call, the old /export route is read-only now and new callers go to "
            "/exports.",
            "read-only",
        ),
    ],
)
def test_a_change_to_a_new_named_state_reported_done_is_a_decision(said: str, value: str) -> None:
    kept(capture(said, "assistant", previous="ok"), "events", value)


@pytest.mark.parametrize(
    "said",
    [
        "Done: I renamed the helper to parse_rows.",
        "I renamed the helper to parse_rows and updated the imports.",
        "Upgraded the function signature to accept a list.",
    ],
)
def test_an_edit_to_code_stays_narration(said: str) -> None:
    assert [c for c in capture(said, "assistant") if c.category == "events"] == []


# --------------------------------------------------------------------------- solved cases


@pytest.mark.parametrize(
    ("said", "previous", "values"),
    [
        (
            "The nightly export ran twice because both cron hosts had the job enabled. I disabled "
            "it on cron-b and kept cron-a as the only scheduler.",
            "ok",
            ("ran twice", "cron-b"),
        ),
        (
            "Found it. The worker leaked file handles on every retry. I wrapped the client in a "
            "context manager.",
            "ok",
            ("leaked file handles", "context manager"),
        ),
        (
            "查到了：登录偶尔失败是 token 刷新和请求并发，旧 token 被作废了。"
            "已经在拦截器里加了刷新锁，并发请求会等新 token。",
            "ok",
            ("token", "刷新锁"),
        ),
        (
            "It's the weekly partition job: it drops last week's partition before the new one is "
            "loaded. I moved the drop to run after the load finishes.",
            "why is the dashboard empty on Mondays?",
            ("partition", "after the load"),
        ),
    ],
)
def test_a_cause_then_the_speakers_change_is_one_case(
    said: str, previous: str, values: tuple[str, ...]
) -> None:
    kept(capture(said, "assistant", previous=previous), "cases", *values)


def test_a_finding_announced_first_makes_what_follows_a_case() -> None:
    said = (
        "figured out the flaky upload test!! the fixture shared one temp dir across workers. "
        "switched it to tmp_path and it passes 100 runs in a row"
    )
    kept(capture(said), "cases", "temp dir", "tmp_path")


def test_a_reason_for_the_speakers_own_choice_is_no_case() -> None:
    said = "I chose Postgres because the team knows it. I set up the schema in db/schema.sql."
    assert [c for c in capture(said, "assistant") if c.category == "cases"] == []


# --------------------------------------------------------------------------- casual rules


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("in this project please use httpx, not requests, the sync client is fine", "httpx"),
        ("pls dont use default exports in this repo, named exports only", "default exports"),
        ("btw in this repo pls dont use default exports", "default exports"),
        ("id rather you ask before deleting any file. every time.", "deleting"),
        ("class components are banned here, function components only", "class components"),
        ("No changelog entries for typo fixes, only for changes users notice.", "changelog"),
        ("can you stop wrapping every answer in a summary? just answer.", "summary"),
        ("function components + hooks only, nothing class-based goes in", "hooks"),
    ],
)
def test_a_rule_said_casually_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


def test_a_javascript_function_is_still_code() -> None:
    assert capture("function retry(fn, n) {\n  return fn().catch(() => retry(fn, n - 1));\n}") == []


# --------------------------------------------------------------------------- releases


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("deployed the billing worker to prod last night, it runs hourly now", "billing worker"),
        ("We released the new SDK to npm yesterday.", "SDK"),
    ],
)
def test_a_release_reported_done_is_a_decision(said: str, value: str) -> None:
    kept(capture(said), "events", value)


def test_pushing_a_branch_is_no_release() -> None:
    assert capture("I pushed the branch to origin.") == []


# --------------------------------------------------------------------------- picks, approvals


@pytest.mark.parametrize(
    ("options", "reply", "value"),
    [
        (
            "Two ways to fix the flaky deploy: (a) retry the helm upgrade twice, or (b) move the "
            "migration into a pre-install hook job and keep one attempt. I'd lean (b).",
            "b. go for it",
            "pre-install hook",
        ),
        (
            "Option A keeps the cron on the VM. Option B: move the nightly report to a Cloud Run "
            "job with a scheduler trigger; costs a bit more.",
            "yep B. do it, the VM dies every other week anyway",
            "Cloud Run",
        ),
        (
            "方案一：继续用 Celery，加一个专门的队列；方案二：换成 Temporal，重试和超时都交给它。"
            "我倾向方案二。",
            "选方案二吧",
            "Temporal",
        ),
    ],
)
def test_picking_a_listed_option_keeps_the_option(options: str, reply: str, value: str) -> None:
    found = capture(reply, previous=options)
    kept(found, "events", value)
    assert not any("Celery" in c.text or "retry the helm" in c.text for c in found)


@pytest.mark.parametrize(
    ("proposal", "reply", "value"),
    [
        (
            "日志里大概有 5% 的重复请求，我建议在网关加一层幂等键校验，按 request-id 去重，保留 "
            "24 小时。要这么做吗？",
            "可以，就按这个来",
            "幂等键",
        ),
        (
            "我建议把定时任务从 crontab 挪到 Airflow，失败重试和告警都有现成的。",
            "行，就这么定了，下周开始挪",
            "Airflow",
        ),
    ],
)
def test_approving_a_proposal_keeps_the_proposal(proposal: str, reply: str, value: str) -> None:
    kept(capture(reply, previous=proposal), "events", value)


@pytest.mark.parametrize(
    ("offer", "reply"),
    [("Want me to delete the old branches?", "do it"), ("Should I bump it?", "yes please")],
)
def test_accepting_an_offer_is_still_no_decision(offer: str, reply: str) -> None:
    assert capture(reply, previous=offer) == []


# --------------------------------------------------------------------------- ZH, confirmations


@pytest.mark.parametrize(
    ("said", "value"),
    [("本人大二，在做课程设计", "大二"), ("我们就三个人，我一个人管前端和测试", "前端")],
)
def test_what_the_user_studies_or_looks_after_alone_is_their_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


def test_telling_the_agent_to_stop_a_habit_is_a_preference() -> None:
    kept(capture("别再给我包一层 retry 装饰器了，失败就直接抛出来"), "preferences", "retry")


def test_how_to_explain_things_stays_a_preference_not_a_workflow() -> None:
    kept(capture("以后给我讲代码，先说结论再讲细节"), "preferences", "结论")


def test_a_procedure_naming_sql_explain_stays_a_workflow() -> None:
    said = "以后查慢接口的套路：先看 APM 的 trace，再拿 EXPLAIN 看执行计划。"
    kept(capture(said, "assistant", previous="ok"), "patterns", "EXPLAIN")


@pytest.mark.parametrize(
    ("fix", "reply", "value"),
    [
        (
            "我在 nginx.conf 里把 proxy_buffering 关了。",
            "好了！下载不卡住了，谢谢",
            "proxy_buffering",
        ),
        (
            "问题出在缓存没失效，我在 save() 里给它加了 cache.delete。",
            "好了！列表不串了",
            "cache.delete",
        ),
        (
            "Root cause: both tests wrote to /tmp/out. I switched them to tmp_path.",
            "confirmed, ran it 20 times, all green",
            "tmp_path",
        ),
    ],
)
def test_confirming_the_other_sides_fix_keeps_it(fix: str, reply: str, value: str) -> None:
    kept(capture(reply, previous=fix), "cases", value)


# --------------------------------------------------------------------------- false keeps


@pytest.mark.parametrize(
    "said",
    [
        "My manager keeps saying we should move everything to Kubernetes. I don't buy it, just "
        "venting.",
        "我们老板非要全换成微服务，我不太认同，吐槽一下。",
    ],
)
def test_someone_elses_view_the_user_disputes_is_no_memory(said: str) -> None:
    assert capture(said) == []


def test_someone_elses_rule_passed_on_is_still_kept() -> None:
    kept(capture("My lead says we deploy on Tuesdays only."), "patterns", "Tuesdays")


def test_a_choice_left_to_the_other_side_is_no_decision() -> None:
    assert capture("Let's go with whichever is easier for you.") == []


def test_esp_idf_log_lines_are_output() -> None:
    said = "网关又报这个了：\nW (3312) mqtt: connection lost, errno=104\nE (3320) wifi: beacon lost"
    assert capture(said) == []


def test_an_assistants_next_step_is_narration() -> None:
    said = "好的，我接下来去改 nginx 的超时配置，改完重启一下看看。"
    assert capture(said, "assistant", previous="ok") == []


@pytest.mark.parametrize(
    "said",
    [
        "In config/settings.py, the cache timeout is read from the CACHE_TTL env var.",
        "在 app/config.go 里，超时时间是从 HTTP_TIMEOUT 环境变量读取的。",
    ],
)
def test_where_the_code_reads_a_value_is_no_memory(said: str) -> None:
    assert capture(said, "assistant") == []


def test_a_read_from_sentence_drops_only_itself_from_a_setup_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The model's call is fixed here (its scores are the model's business): what is tested is
    # that a sentence saying where secrets come from drops itself, not the report before it.
    from recallnest.capture import learned

    monkeypatch.setattr(learned, "predict", lambda text, role, model=None: ("entities", 0.9))
    said = (
        "sync.py now copies the nightly dumps to the tallow-archive bucket through the S3 "
        "client pointed at the MinIO endpoint, serves them on https://files.tallow.example, "
        "and pings the ops channel when done. All keys are read from the environment."
    )
    found = capture(said, "assistant")
    kept(found, "entities", "tallow-archive", "files.tallow.example")
    assert not any("read from" in c.text for c in found)


def test_a_user_saying_where_config_is_loaded_from_is_a_fact() -> None:
    kept(capture("the config is loaded from /etc/shop/app.yaml on every box"), "entities", "/etc")


# --------------------------------------------------------------------------- more forms


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("German is my second language, so keep the wording plain.", "second language"),
        ("i've mostly done embedded C, so TypeScript is still kinda new to me", "TypeScript"),
    ],
)
def test_a_language_background_is_the_users_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


def test_something_new_to_the_user_in_the_task_is_no_profile() -> None:
    assert [c for c in capture("this error is new to me") if c.category == "profile"] == []


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "In this codebase pls use httpx for anything new, the requests calls are legacy.",
            "httpx",
        ),
        ("Please keep fixtures free of real customer data, use the faker factories.", "faker"),
        ("部署到线上时请先在群里说一声。", "群里"),
    ],
)
def test_a_standing_instruction_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "定位到了：Pod 一直重启是因为 readinessProbe 的超时只有 1 秒，冷启动要 20 秒。"
            "我加了 startupProbe，给了 60 秒。",
            ("readinessProbe", "startupProbe"),
        ),
        (
            "定位到了：报表导出把整张表读进内存，数据一多就 OOM。"
            "改成按主键分批读取之后，内存稳定在 200M 左右。",
            ("OOM", "分批"),
        ),
    ],
)
def test_a_diagnosis_keeps_the_change_said_next(said: str, values: tuple[str, ...]) -> None:
    kept(capture(said, "assistant", previous="ok"), "cases", *values)
