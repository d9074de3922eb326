"""Capture, round 39: the classes blind batch b28 showed, each tested on phrasings of our own
(not the batch's rows): a decision said not to exist yet, pasted CI output, rules given as
imperatives or in passing, and the other ways a statement was filed under the wrong category
or not heard at all."""

from __future__ import annotations

import pytest
from support.capturing import capture

from recallnest.core.models import Capture


def kept(found: list[Capture], category: str, *values: str) -> None:
    assert any(
        c.category == category and all(v.lower() in c.text.lower() for v in values) for c in found
    ), [(c.category, c.rule, c.text) for c in found]


def none_of(found: list[Capture], category: str) -> None:
    assert [c for c in found if c.category == category] == [], [
        (c.category, c.rule, c.text) for c in found
    ]


# --------------------------------------------------------------------------- no decision yet


@pytest.mark.parametrize(
    "said",
    [
        "we still haven't decided between Redis and Memcached for the session cache",
        "nothing got decided in the architecture sync, we'll revisit it next sprint",
        "the team never agreed on a queue, it's up in the air",
        "评审会开完了，存储方案还是没敲定",
        "鉴权这块等下个版本再定，老板还没拍板",
        "开了一下午会，最后啥也没决定",
    ],
)
def test_a_decision_negated_or_put_off_is_no_decision(said: str) -> None:
    none_of(capture(said), "events")


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("We decided not to ship the Windows build.", "Windows"),
        ("定了，缓存用 Redis。", "Redis"),
    ],
)
def test_a_decision_taken_is_still_one(said: str, value: str) -> None:
    kept(capture(said), "events", value)


# --------------------------------------------------------------------------- pasted CI output


@pytest.mark.parametrize(
    "said",
    [
        "the deploy job broke again:\nRun npm ci\nnpm ERR! code ERESOLVE\n"
        "npm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@18.2.0\n"
        "Error: Process completed with exit code 1.",
        "流水线红了：\nRun yarn install --immutable\n"
        "ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/@acme%2Fui: Not Found - 404\n"
        "This error happened while installing a direct dependency of packages/web\n"
        "Error: Process completed with exit code 1.",
        "构建又失败了，看下：\nRun cargo build --release\nScope: all crates\n"
        "ERR_BUILD_CACHE_MISS  cache for target/release is stale\n\n"
        "Note that on CI runners the cache is always restored by default.\n"
        "Error: Process completed with exit code 101.",
    ],
)
def test_pasted_ci_output_is_no_memory(said: str) -> None:
    assert capture(said) == []


def test_a_rule_that_opens_with_run_is_still_prose() -> None:
    kept(capture("Run the tests before you push, always."), "patterns", "before you push")


# --------------------------------------------------------------------------- rules in passing


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "in the Rust crates, don't reach for unwrap() in library code, return a Result and "
            "let the caller decide",
            "unwrap()",
        ),
        (
            "for the API handlers: don't swallow exceptions with a bare except, let them bubble "
            "to the middleware",
            "bare except",
        ),
        (
            "ok go ahead with the migration, but keep the column names snake_case like the rest "
            "of the schema",
            "snake_case",
        ),
        (
            "write the fixtures as plain dicts like the rest of the tests, none of that "
            "factory_boy magic",
            "plain dicts",
        ),
        ("please quit wrapping every call in try/except just to log it", "try/except"),
        ("stop leaving console.log calls in the components when you're done", "console.log"),
        ("新加的接口命名跟其他模块保持一致，别自己起一套", "命名"),
        ("我向来不用 lodash，原生方法够用了", "lodash"),
        ("我平时只用 pnpm，别给我 npm 的命令", "pnpm"),
        ("你写 Dockerfile 的时候别用 latest 标签", "latest"),
        ("生成迁移的时候不要带 DROP 语句", "DROP"),
    ],
)
def test_a_rule_given_as_an_imperative_or_in_passing_is_a_preference(said: str, value: str) -> None:
    found = capture(said)
    kept(found, "preferences", value)
    none_of(found, "entities")


@pytest.mark.parametrize("said", ["stop the dev server, I need the port", "上线的时候别慌"])
def test_a_one_off_order_or_an_aside_is_no_preference(said: str) -> None:
    none_of(capture(said), "preferences")


# --------------------------------------------------------------------------- who the user is


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("heads up, I'm a DBA by trade, the Python side is new territory", "DBA"),
        ("I'm a lab technician who ended up owning the LIMS scripts", "technician"),
        ("I'm behind a corporate proxy, so any curl you give me needs the --proxy flag", "proxy"),
        ("my work laptop is air-gapped, so no pip install from PyPI, only our Nexus mirror", "air"),
        ("我这里只能走公司代理，装依赖要配镜像", "代理"),
        ("我的开发机是离线环境，docker pull 拉不下来", "离线"),
        ("我这边是纯离线环境，所有依赖都得从内部 Nexus 拉，你给的命令记得加上镜像地址", "离线"),
        ("我这里是内网环境，访问不了 GitHub", "内网"),
        ("我本地是隔离网，只能用公司的 pypi 镜像", "隔离网"),
    ],
)
def test_the_users_role_or_network_is_a_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


def test_a_server_behind_a_proxy_is_no_profile() -> None:
    none_of(capture("the server is behind a proxy"), "profile")


# --------------------------------------------------------------------------- cases and workflows


@pytest.mark.parametrize(
    ("guess", "reply", "value"),
    [
        (
            "Could the missing live updates be a CORS issue?",
            "nope, it was the proxy buffering. nginx held the SSE stream until it closed; set "
            "proxy_buffering off for /events and the updates stream live now",
            "proxy_buffering",
        ),
        (
            "could this be a caching thing?",
            "yes, it was the cache. the CDN kept serving the old bundle; purging it on deploy "
            "fixed it",
            "purging",
        ),
        (
            "会不会是容器时区不对导致日期差一天？",
            "对，就是时区的问题。容器里 TZ 没设，统一设成 Asia/Shanghai 以后报表日期就对上了",
            "Asia/Shanghai",
        ),
    ],
)
def test_a_reply_to_a_guessed_cause_with_the_fix_is_a_case(
    guess: str, reply: str, value: str
) -> None:
    found = capture(reply, previous=guess)
    kept(found, "cases", value)
    none_of(found, "entities")


@pytest.mark.parametrize(
    ("asked", "said", "values"),
    [
        (
            "how do I add a new locale?",
            "To add a locale: copy locales/en.json to the new code, translate the strings, then "
            "run `pnpm i18n:check` before the PR.",
            ("locales/en.json", "i18n:check"),
        ),
        (
            "remind me how the demo data gets loaded?",
            "Run `make seed` against the dev database, then restart the API so it picks up the "
            "fixtures.",
            ("make seed", "restart"),
        ),
        (
            "新服务的 proto 怎么更新？",
            "先跑 ./scripts/gen-proto.sh 生成代码，再执行 make build，最后把 dist 目录推到制品库。",
            ("gen-proto.sh", "make build"),
        ),
    ],
)
def test_steps_given_in_answer_to_how_are_a_workflow(
    asked: str, said: str, values: tuple[str, ...]
) -> None:
    kept(capture(said, "assistant", previous=asked), "patterns", *values)


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (
            "how does a request reach the database?",
            "The request hits nginx, then the app, then Postgres.",
        ),
        ("how did you fix it?", "I ran the migration, then restarted the worker."),
    ],
)
def test_a_path_or_a_narration_after_how_is_no_workflow(asked: str, said: str) -> None:
    none_of(capture(said, "assistant", previous=asked), "patterns")


# --------------------------------------------------------------------------- decisions and facts


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "We're switching the nightly export to Airflow. The old crontab kept dropping runs "
            "whenever the box rebooted.",
            ("Airflow", "crontab"),
        ),
        ("定了，队列换成 RabbitMQ。之前的 Redis list 老是丢消息。", ("RabbitMQ", "丢消息")),
    ],
)
def test_what_went_wrong_with_the_old_way_joins_the_decision(
    said: str, values: tuple[str, ...]
) -> None:
    found = capture(said)
    kept(found, "events", *values)
    assert len(found) == 1, [(c.category, c.rule, c.text) for c in found]


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("Done: the API gateway is on Envoy 1.31 now.", "Envoy 1.31"),
        ("Finished: the docs site runs on Docusaurus 3 now.", "Docusaurus 3"),
    ],
)
def test_a_move_to_a_named_version_reported_done_is_a_decision(said: str, value: str) -> None:
    kept(capture(said, "assistant"), "events", value)


@pytest.mark.parametrize(
    ("asked", "said", "value"),
    [
        (
            "where do user uploads go?",
            "Your uploads end up in the `media-prod` bucket under uploads/YYYY/MM.",
            "media-prod",
        ),
        (
            "where do the webhook events go?",
            "They land in the `events_raw` table, partitioned by month.",
            "events_raw",
        ),
    ],
)
def test_where_things_end_up_is_a_fact(asked: str, said: str, value: str) -> None:
    kept(capture(said, "assistant", previous=asked), "entities", value)


# --------------------------------------------------------------------------- one-word answers


@pytest.mark.parametrize(
    ("options", "reply", "value"),
    [
        (
            "We could (a) keep sessions in Postgres with a cleanup cron, or (b) add Redis just "
            "for sessions. Which do you prefer?",
            "the first option please, we can't afford another service to babysit",
            "Postgres",
        ),
        (
            "Two ways: (1) a nightly batch job, (2) a CDC stream through Debezium. The second is "
            "fresher but more to run.",
            "second one. the analysts want same-day numbers",
            "Debezium",
        ),
        (
            "两个方案：方案一：自建 MinIO 存附件；方案二：直接用公司现有的 Ceph 集群。你选哪个？",
            "第二个吧，运维那边已经有现成的集群了",
            "Ceph",
        ),
    ],
)
def test_an_option_picked_by_its_place_keeps_the_option(
    options: str, reply: str, value: str
) -> None:
    kept(capture(reply, previous=options), "events", value)


@pytest.mark.parametrize(
    ("plan", "reply", "value"),
    [
        (
            "I'll write the request validation with Joi like the old handlers.",
            "zod, the rest of the api already validates with it",
            "zod",
        ),
        ("我来用 npm 装依赖，然后跑构建。", "pnpm，npm 在 CI 上太慢了", "pnpm"),
        (
            "I'd suggest adding jest for the new unit tests.",
            "vitest. jest keeps choking on our ESM packages",
            "vitest",
        ),
    ],
)
def test_a_bare_name_over_the_other_sides_plan_is_a_preference(
    plan: str, reply: str, value: str
) -> None:
    found = capture(reply, previous=plan)
    kept(found, "preferences", value)
    none_of(found, "events")


@pytest.mark.parametrize(
    ("before", "reply"),
    [
        ("I'll add the new settings as a YAML file.", "yes. go ahead"),
        ("I'll add the new settings as a YAML file.", "yaml. keep it consistent"),
        ("The deploy finished on staging.", "staging. prod is frozen this week"),
    ],
)
def test_a_yes_the_same_name_or_a_reply_to_a_report_is_no_pick(before: str, reply: str) -> None:
    assert [c for c in capture(reply, previous=before) if c.rule.endswith("counter_pick")] == []


# --------------------------------------------------------------------------- this change only


@pytest.mark.parametrize(
    ("said", "previous", "value"),
    [
        (
            "switch the error messages to Spanish, almost all our users are in Mexico",
            "I wrote the validation errors in English for now.",
            "Spanish",
        ),
        ("提示文案都改成英文，这个工具主要给海外团队用", None, "英文"),
    ],
)
def test_the_language_the_product_speaks_is_a_preference(
    said: str, previous: str | None, value: str
) -> None:
    kept(capture(said, previous=previous), "preferences", value)


@pytest.mark.parametrize(
    "said",
    [
        "translate this paragraph into English",
        "把这几个接口的返回统一改成 404，别再返回 500 了",
        "make these two endpoints return 404, don't leak the stack trace",
        "帮我把这段代码的变量名统一改成驼峰，别用下划线",
    ],
)
def test_an_order_about_the_thing_at_hand_is_no_rule(said: str) -> None:
    found = capture(said)
    none_of(found, "preferences")
    none_of(found, "events")


def test_an_order_for_the_whole_repo_is_still_a_rule() -> None:
    kept(capture("make this repo use pnpm, don't use npm"), "preferences", "pnpm")
