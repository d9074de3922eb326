"""The role a product plays in a project: message broker, object storage, cache, auth, ….

A user who withdraws an earlier statement names it by its role more often than by its value
("scratch what I told you about the job transport", 之前说的对象存储那部分作废), and the fact they
withdraw names the product ("background jobs travel over RabbitMQ", 原图存到 MinIO). This
vocabulary links the two: `roles_in(text)` is the set of roles a text names, by a word for the
role itself or by a product that fills it.

Kept to products whose role is unambiguous in coding talk; a product with two common roles is
listed under both (Redis: cache and, as Redis Streams, a broker). Standard library only.
"""

from __future__ import annotations

import re

# Role -> (words naming the role, products filling it), casefolded, "|"-separated.
_TABLE = {
    "message-broker": (
        "message queue|message broker|broker|job queue|job transport|event bus|pub/sub|"
        "messaging|queue|消息队列|消息中间件|队列",
        "rabbitmq|kafka|nats|jetstream|redis streams|sqs|sns|pulsar|activemq|nsq|zeromq|"
        "google pub/sub|eventbridge|kinesis|rocketmq",
    ),
    "object-storage": (
        "object storage|object store|blob storage|bucket|对象存储|存储桶",
        "s3|minio|r2|gcs|google cloud storage|azure blob|backblaze|b2|oss|cos|ceph|wasabi",
    ),
    "cache": (
        "cache|caching|cdn|缓存",
        "redis|memcached|varnish|fastly|cloudflare|akamai|cloudfront|dragonfly|keydb",
    ),
    "auth": (
        "auth|authentication|login|sso|identity provider|idp|认证|登录|鉴权|单点登录",
        "keycloak|auth0|okta|cognito|clerk|firebase auth|supabase auth|authentik|ory|entra id|"
        "azure ad",
    ),
    "database": (
        "database|数据库|主库",
        "postgresql|mysql|mariadb|sqlite|mongodb|dynamodb|cockroachdb|tidb|cassandra|scylladb|"
        "sql server|oracle|planetscale|neon|supabase|firestore|clickhouse",
    ),
    "search": (
        "search engine|full-text search|search|搜索",
        "algolia|meilisearch|elasticsearch|opensearch|typesense|solr|sonic|zincsearch",
    ),
    "ci": (
        "ci|pipeline|持续集成|流水线",
        "github actions|gitlab ci|jenkins|circleci|buildkite|drone|travis|teamcity|"
        "azure pipelines|bitbucket pipelines",
    ),
    "hosting": (
        "hosting|deploy target|deployment target|deploys|deploy|部署",
        "vercel|netlify|fly.io|heroku|render|railway|ecs|cloud run|app engine|lambda|"
        "kubernetes|nomad|argo cd|cloudflare pages",
    ),
    "monitoring": (
        "monitoring|error tracking|observability|alerting|监控|告警",
        "sentry|datadog|grafana|prometheus|new relic|honeycomb|bugsnag|rollbar|opsgenie|pagerduty",
    ),
    "payments": (
        "payments|payment provider|payment gateway|psp|支付",
        "stripe|adyen|mollie|paypal|braintree|paddle|checkout.com|alipay|wechat pay|"
        "支付宝|微信支付",
    ),
    "browser": (
        "browser|browsers|浏览器",
        "chrome|firefox|safari|edge|chromium|opera|brave|webkit|gecko",
    ),
    "email": (
        "email provider|transactional email|mail provider|邮件",
        "sendgrid|mailgun|ses|postmark|mailchimp|resend|sparkpost",
    ),
}
ROLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    role: (tuple(words.split("|")), tuple(products.split("|")))
    for role, (words, products) in _TABLE.items()
}


def roles_in(text: str) -> frozenset[str]:
    """The roles `text` names, by a word for the role or a product filling it."""
    folded = text.casefold()
    return frozenset(role for role, pattern in _PATTERNS.items() if pattern.search(folded))


def products_in(text: str) -> frozenset[tuple[str, str]]:
    """(role, product) for every product `text` names: "orders go to PostgreSQL" ->
    {("database", "postgresql")}."""
    folded = text.casefold()
    return frozenset(
        (role, m.group(0)) for role, pattern in _PRODUCTS.items() for m in pattern.finditer(folded)
    )


def role_words(roles: frozenset[str]) -> tuple[str, ...]:
    """Every word naming one of `roles` or a product filling it (for a keyword lookup)."""
    return tuple(w for role in sorted(roles) for part in ROLES[role] for w in part)


def _pattern(terms: tuple[str, ...]) -> re.Pattern[str]:
    # A Latin term is a whole word ("r2" not inside "r2d2", "oss" not inside "boss"); a CJK one
    # matches anywhere, as CJK text has no word breaks.
    latin = "|".join(map(re.escape, sorted((t for t in terms if t.isascii()), key=len)[::-1]))
    cjk = "|".join(re.escape(t) for t in terms if not t.isascii())
    return re.compile(rf"(?<![\w\-./])(?:{latin})(?![\w\-])" + (f"|{cjk}" if cjk else ""))


_PATTERNS = {role: _pattern((*words, *products)) for role, (words, products) in ROLES.items()}
_PRODUCTS = {role: _pattern(products) for role, (_, products) in ROLES.items()}
