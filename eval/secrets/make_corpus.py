# ruff: noqa: E501  (one template per line reads better than wrapped ones)
"""Write the redaction corpus: realistic secret formats and look-alikes that must be kept.

Run from the repository root:  python -m eval.secrets.make_corpus

Templates are written by hand; the secret values are drawn from a seeded generator, so the
files are reproducible and no value is a real credential. Each format is assigned to the
`dev` or `heldout` split by a hash of its name (about one in three is held out): rules are
tuned on dev only, held-out is measured at the end (eval/secrets/run.py).
Writes eval/secrets/positives.jsonl and eval/secrets/lookalikes.jsonl.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
R = random.Random(1814)
B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = B62 + "+/"
URLSAFE = B62 + "-_"


def rnd(n: int, alphabet: str = B62, gen: random.Random = R) -> str:
    while True:
        value = "".join(gen.choice(alphabet) for _ in range(n))
        classes = [any(c.isdigit() for c in value), any(c.isupper() for c in value)]
        if alphabet != B62 or all(classes):
            return value


def pw() -> str:
    """A human-made password: word, digits, a symbol."""
    word = R.choice(["Falcon", "river", "Mango", "tundra", "Copper", "violet", "Harbor"])
    return word + str(R.randint(10, 9999)) + R.choice("!#%&*@$?") + R.choice(["x", "Q", "zz"])


def words(n: int, sep: str = "-") -> str:
    pool = ["orbit", "lantern", "staple", "cobalt", "meadow", "velvet", "quartz", "saddle"]
    pool += ["ember", "fjord", "gravel"]
    return sep.join(R.sample(pool, n)) + sep + str(R.randint(10, 99))


def uuid() -> str:
    h = rnd(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def b32(n: int) -> str:
    return rnd(n, string.ascii_uppercase + "234567")


# (format name, text builder returning (text, secrets, keep)).
Positive = Callable[[], tuple[str, list[str], list[str]]]
POSITIVES: dict[str, Positive] = {}


def pos(name: str) -> Callable[[Positive], Positive]:
    def add(fn: Positive) -> Positive:
        POSITIVES[name] = fn
        return fn

    return add


def simple(name: str, template: str, value: Callable[[], str], keep: tuple[str, ...] = ()) -> None:
    def build() -> tuple[str, list[str], list[str]]:
        v = value()
        return template.format(S=v), [v], list(keep)

    POSITIVES[name] = build


# ---- vendor-prefixed tokens ---------------------------------------------------------------
simple("github-classic", "push failed, I used GH_TOKEN {S} from CI", lambda: "ghp_" + rnd(36))
simple("github-oauth", "the oauth app returned gho_ token: {S}", lambda: "gho_" + rnd(36))
simple(
    "github-fine-grained",
    "new fine-grained PAT {S} (expires in 30 days)",
    lambda: "github_pat_" + rnd(22) + "_" + rnd(59),
)
simple(
    "gitlab-pat", "git push https://oauth2:{S}@gitlab.com/acme/app.git", lambda: "glpat-" + rnd(20)
)
simple("gitlab-runner", "gitlab-runner register --token {S}", lambda: "glrt-" + rnd(20, URLSAFE))
simple(
    "slack-bot",
    "SLACK_BOT_TOKEN={S}",
    lambda: f"xoxb-{R.randint(10**11, 10**12)}-{R.randint(10**11, 10**12)}-{rnd(24)}",
)
simple(
    "slack-user",
    "the user token ({S}) can read DMs",
    lambda: f"xoxp-{R.randint(10**11, 10**12)}-{R.randint(10**11, 10**12)}-{rnd(32, HEX)}",
)
simple("stripe-live", "charge with stripe.api_key = '{S}'", lambda: "sk_live_" + rnd(24))
simple("stripe-restricted", "the reporting job uses {S}", lambda: "rk_live_" + rnd(24))
simple(
    "stripe-webhook-pref",
    "Preference: always verify local webhooks with {S} when running stripe listen",
    lambda: "whsec_" + rnd(32),
)
simple("openai-project", 'client = OpenAI(api_key="{S}")', lambda: "sk-proj-" + rnd(48, URLSAFE))
simple("anthropic", "ANTHROPIC_API_KEY: {S}", lambda: "sk-ant-api03-" + rnd(93, URLSAFE) + "AA")
simple("google-api", "maps key in index.html: {S}", lambda: "AIza" + rnd(35, URLSAFE))
simple(
    "google-oauth-secret",
    "client secret is {S} for the desktop app",
    lambda: "GOCSPX-" + rnd(28, URLSAFE),
)
simple("npm-token", "//registry.npmjs.org/:_authToken={S}", lambda: "npm_" + rnd(36))
simple(
    "pypi-token",
    "twine upload -u __token__ -p {S} dist/*",
    lambda: "pypi-AgEIcHlwaS5vcmc" + rnd(60, URLSAFE),
)
simple(
    "huggingface",
    "huggingface-cli login --token {S}",
    lambda: "hf_" + rnd(34, string.ascii_letters),
)
simple("digitalocean", "doctl auth init -t {S}", lambda: "dop_v1_" + rnd(64, HEX))
simple("shopify-admin", "X-Shopify-Access-Token: {S}", lambda: "shpat_" + rnd(32, HEX))
simple(
    "sendgrid", "SENDGRID_API_KEY={S}", lambda: "SG." + rnd(22, URLSAFE) + "." + rnd(43, URLSAFE)
)
simple("twilio-sid-key", "twilio api key {S} for the sms worker", lambda: "SK" + rnd(32, HEX))
simple("mailgun", "mailgun domain key-{S} is in vault", lambda: rnd(32, HEX))
simple(
    "telegram-bot", 'bot = Bot("{S}")', lambda: f"{R.randint(10**8, 10**9)}:AA{rnd(33, URLSAFE)}"
)
simple("databricks", "databricks configure --token, paste {S}", lambda: "dapi" + rnd(32, HEX))
simple("vault-service-token", "export VAULT_TOKEN={S}", lambda: "hvs." + rnd(90, URLSAFE))
simple("vault-old-token", "vault login with token s.{S}", lambda: rnd(24))
simple("doppler", "DOPPLER_TOKEN is {S}", lambda: "dp.st.prd." + rnd(40))
simple("linear", "linear api: Authorization {S}", lambda: "lin_api_" + rnd(40))
simple("notion", "notion integration token {S}", lambda: "ntn_" + rnd(46))
simple("figma", "figma personal access token {S}", lambda: "figd_" + rnd(40, URLSAFE))
simple(
    "grafana-sa", "grafana service account token {S}", lambda: "glsa_" + rnd(32) + "_" + rnd(8, HEX)
)
simple("sentry-user", "SENTRY_AUTH_TOKEN={S}", lambda: "sntryu_" + rnd(64, HEX))
simple(
    "docker-hub",
    "echo {S} | docker login -u acme --password-stdin",
    lambda: "dckr_pat_" + rnd(27, URLSAFE),
)
simple("planetscale", "pscale token: {S}", lambda: "pscale_tkn_" + rnd(43, URLSAFE))
simple("postman", "postman api key {S}", lambda: f"PMAK-{rnd(24, HEX)}-{rnd(34, HEX)}")
simple("atlassian", "jira token for ci@acme.io is {S}", lambda: "ATATT3xFfGF0" + rnd(180, URLSAFE))
simple(
    "newrelic",
    "NEW_RELIC_API_KEY={S}",
    lambda: "NRAK-" + rnd(27, string.ascii_uppercase + string.digits),
)
simple("groq", "groq client uses {S}", lambda: "gsk_" + rnd(52))
simple("openrouter", "openrouter key {S} for the eval", lambda: "sk-or-v1-" + rnd(64, HEX))
simple("xai", 'XAI_API_KEY="{S}"', lambda: "xai-" + rnd(80))
simple("replicate", "REPLICATE_API_TOKEN {S}", lambda: "r8_" + rnd(37))
simple(
    "age-key",
    "age identity: {S}",
    lambda: "AGE-SECRET-KEY-1" + rnd(58, string.ascii_uppercase + "0123456789"),
)
simple("square", "square access token {S}", lambda: "EAAA" + rnd(60, URLSAFE))
simple(
    "mapbox-secret",
    "mapbox secret token {S}",
    lambda: "sk.eyJ1Ijoi" + rnd(50, URLSAFE) + "." + rnd(22, URLSAFE),
)
simple("pulumi", "PULUMI_ACCESS_TOKEN={S}", lambda: "pul-" + rnd(40, HEX))
simple("buildkite", "buildkite agent token {S}", lambda: "bkua_" + rnd(40, HEX))
simple("tailscale", "tailscale up --authkey {S}", lambda: "tskey-auth-" + rnd(17) + "-" + rnd(32))
simple("netlify", "netlify deploy --auth {S}", lambda: "nfp_" + rnd(36))
simple("render", "render api key {S}", lambda: "rnd_" + rnd(32))
simple("heroku", "heroku authorizations:create printed {S}", lambda: "HRKU-AA" + rnd(58, URLSAFE))
simple("contentful", "contentful CMA token {S}", lambda: "CFPAT-" + rnd(43, URLSAFE))
simple("resend", 'resend.api_key = "{S}"', lambda: "re_" + rnd(32))
simple("posthog-personal", "posthog personal api key {S}", lambda: "phx_" + rnd(43))
simple("dropbox", "dropbox short-lived token {S}", lambda: "sl.B" + rnd(130, URLSAFE))
simple(
    "terraform-cloud",
    'credentials "app.terraform.io" {{ token = "{S}" }}',
    lambda: rnd(14) + ".atlasv1." + rnd(67),
)
simple(
    "onepassword-sa",
    "OP_SERVICE_ACCOUNT_TOKEN={S}",
    lambda: "ops_eyJzaWduSW5BZGRyZXNzIjoi" + rnd(120, URLSAFE),
)
simple(
    "jwt-bearer",
    'curl -H "Authorization: Bearer {S}" https://api.acme.io/v1/me',
    lambda: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI" + rnd(40, URLSAFE) + "." + rnd(43, URLSAFE),
)
simple(
    "okta-ssws", "okta wants the header Authorization: SSWS {S}", lambda: "00" + rnd(40, URLSAFE)
)
simple(
    "discord-webhook",
    "post alerts to https://discord.com/api/webhooks/{S}",
    lambda: f"{R.randint(10**17, 10**18)}/{rnd(68, URLSAFE)}",
)
simple(
    "slack-webhook",
    "SLACK_WEBHOOK=https://hooks.slack.com/services/{S}",
    lambda: (
        f"T{rnd(8, string.ascii_uppercase + string.digits)}/B{rnd(8, string.ascii_uppercase + string.digits)}/{rnd(24)}"
    ),
)

# ---- cloud keys -------------------------------------------------------------------------------
simple(
    "aws-key-id",
    "aws_access_key_id={S}",
    lambda: "AKIA" + rnd(16, string.ascii_uppercase + "234567"),
)


@pos("aws-secret-after-slash")
def _aws_slash() -> tuple[str, list[str], list[str]]:
    kid, secret = "AKIA" + rnd(16, string.ascii_uppercase + "234567"), rnd(40, B64)
    return (
        f"the deploy user is {kid}/{secret}, rotate it after the demo",
        [kid, secret],
        ["deploy user"],
    )


@pos("aws-credentials-ini")
def _aws_ini() -> tuple[str, list[str], list[str]]:
    kid, secret = "AKIA" + rnd(16, string.ascii_uppercase + "234567"), rnd(40, B64)
    text = f"[prod]\naws_access_key_id = {kid}\naws_secret_access_key = {secret}\nregion = eu-central-1"
    return text, [kid, secret], ["eu-central-1"]


simple("aws-session-token", "AWS_SESSION_TOKEN={S}", lambda: "IQoJb3JpZ2luX2VjE" + rnd(200, B64))
simple(
    "azure-storage",
    "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={S};EndpointSuffix=core.windows.net",
    lambda: rnd(86, B64) + "==",
    ("acmelogs",),
)
simple(
    "azure-sas",
    "https://acme.blob.core.windows.net/c/x.zip?sv=2022-11-02&se=2026-01-01&sig={S}",
    lambda: rnd(43, B64).replace("/", "%2F") + "%3D",
)
simple(
    "azure-client-secret",
    "AZURE_CLIENT_SECRET={S}",
    lambda: rnd(3) + "8Q~" + rnd(34, URLSAFE + "~."),
)


@pos("gcp-service-account")
def _gcp() -> tuple[str, list[str], list[str]]:
    kid, body = rnd(40, HEX), rnd(64, B64)
    text = (
        '{\n  "type": "service_account",\n  "project_id": "acme-prod",\n'
        f'  "private_key_id": "{kid}",\n'
        f'  "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEv{body}\\n-----END PRIVATE KEY-----\\n",\n'
        '  "client_email": "ci@acme-prod.iam.gserviceaccount.com"\n}'
    )
    return text, [kid, body], ["acme-prod"]


simple(
    "private-key-id-prose", "the key file has private_key_id {S}, delete it", lambda: rnd(40, HEX)
)

# ---- private keys -------------------------------------------------------------------------------


@pos("pem-rsa")
def _pem() -> tuple[str, list[str], list[str]]:
    body = "\n".join(rnd(64, B64) for _ in range(4))
    return (
        f"here's id_rsa:\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----",
        [body.split()[1]],
        [],
    )


@pos("openssh-truncated")
def _openssh() -> tuple[str, list[str], list[str]]:
    body = "b3BlbnNzaC1rZXktdjEAAAAA" + rnd(60, B64)
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n(rest cut off)", [body], []


@pos("kubeconfig-client-key")
def _kube() -> tuple[str, list[str], list[str]]:
    data = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ" + rnd(80, B64)
    return f"users:\n- name: admin\n  user:\n    client-key-data: {data}\n", [data], ["admin"]


# ---- URLs and connection strings ------------------------------------------------------------------


@pos("database-url-keep-host")
def _dburl() -> tuple[str, list[str], list[str]]:
    p = pw()
    return (
        f"DATABASE_URL=postgres://app:{p}@db.internal:5432/app",
        [p],
        ["db.internal:5432/app", "postgres://app:"],
    )


simple(
    "redis-no-user",
    "REDIS_URL=redis://:{S}@cache.internal:6379/0",
    lambda: rnd(20),
    ("cache.internal:6379",),
)
simple(
    "mongodb-srv",
    'mongosh "mongodb+srv://admin:{S}@cluster0.ab1cd.mongodb.net/shop"',
    lambda: pw(),
    ("cluster0.ab1cd.mongodb.net",),
)
simple("amqp", "broker = 'amqp://worker:{S}@mq.internal:5672//'", lambda: pw(), ("mq.internal",))
simple(
    "git-clone-token",
    "git clone https://x-access-token:{S}@github.com/acme/infra.git",
    lambda: "ghs_" + rnd(36),
    ("github.com/acme/infra.git",),
)
simple(
    "pip-index",
    "pip install --index-url https://deploy:{S}@pypi.acme.io/simple acme-core",
    lambda: pw(),
    ("pypi.acme.io",),
)
simple(
    "sqlserver-conn",
    "Server=tcp:sql.acme.io,1433;Database=orders;User Id=sa;Password={S};Encrypt=true",
    lambda: pw(),
    ("sql.acme.io",),
)
simple(
    "jdbc-query",
    "jdbc:mysql://db.acme.io:3306/shop?user=shop&password={S}&useSSL=true",
    lambda: pw(),
    ("db.acme.io:3306",),
)
simple(
    "url-api-key-param",
    "GET https://api.weather.io/v2/forecast?city=Oslo&api_key={S}",
    lambda: rnd(32, HEX),
    ("city=Oslo",),
)
simple(
    "url-access-token-param",
    "the callback was /cb#access_token={S}&expires_in=3600",
    lambda: rnd(40, URLSAFE),
)
simple(
    "otpauth",
    "otpauth://totp/Acme:ops@acme.io?secret={S}&issuer=Acme",
    lambda: b32(32),
    ("issuer=Acme",),
)

# ---- config files ---------------------------------------------------------------------------------
simple(
    "netrc-oneline",
    "~/.netrc: machine api.heroku.com login ops@acme.io password {S}",
    lambda: rnd(12),
)
simple("netrc-multiline", "machine git.acme.io\n  login deploy\n  password {S}\n", lambda: pw())
simple("pgpass", "~/.pgpass line: db.acme.io:5432:orders:app:{S}", lambda: pw())
simple("dotenv-secret-key", "SECRET_KEY={S}", lambda: rnd(50, B62 + "!@#%^&*(-_=+)"))
simple(
    "dotenv-quoted",
    "DJANGO_SECRET_KEY='{S}'",
    lambda: "django-insecure-" + rnd(40, B62 + "!@#%^&*(-_=+)"),
)
simple("export-token", "export GITHUB_TOKEN={S}", lambda: "ghp_" + rnd(36))
simple(
    "ini-password",
    "[database]\nhost = db.internal\nuser = app\npassword = {S}\n",
    lambda: pw(),
    ("db.internal",),
)
simple("ini-pass", "[smtp]\nserver = mail.acme.io\npass = {S}", lambda: pw(), ("mail.acme.io",))
simple("yaml-token-long", "auth:\n  token: {S}\n  ttl: 3600", lambda: rnd(40), ("ttl: 3600",))
simple("yaml-password", "spring:\n  datasource:\n    password: {S}", lambda: pw())
simple(
    "yaml-client-secret",
    "oauth:\n  client_id: acme-web\n  client_secret: {S}",
    lambda: rnd(32),
    ("acme-web",),
)
simple(
    "compose-env",
    "environment:\n  POSTGRES_PASSWORD: {S}\n  POSTGRES_DB: app",
    lambda: pw(),
    ("POSTGRES_DB: app",),
)
simple("k8s-secret-data", "kind: Secret\ndata:\n  password: {S}", lambda: rnd(16, B64) + "==")
simple("toml-api-key", '[openweather]\napi_key = "{S}"', lambda: rnd(32, HEX))
simple("json-api-key", '{{"service": "geo", "apiKey": "{S}"}}', lambda: rnd(32), ("geo",))
simple("json-escaped", '"{{\\"password\\": \\"{S}\\"}}"', lambda: pw())
simple("js-const", 'const STRIPE_SECRET = "{S}";', lambda: rnd(32))
simple("python-setting", 'AUTH_SIGNING_KEY = "{S}"', lambda: rnd(44, URLSAFE))
simple("go-assign", 'token := "{S}"', lambda: rnd(40))
simple("npmrc-auth", "_auth={S}", lambda: rnd(40, B64) + "=")
simple(
    "pypirc",
    "[pypi]\nusername = __token__\npassword = {S}",
    lambda: "pypi-AgEIcHlwaS5vcmc" + rnd(60, URLSAFE),
)
simple(
    "docker-config-auth",
    '~/.docker/config.json: {{"auths": {{"ghcr.io": {{"auth": "{S}"}}}}}}',
    lambda: rnd(40, B64) + "=",
)
simple("smtp-env", "MAIL_PASSWORD={S}", lambda: pw())
simple("slack-signing", "SLACK_SIGNING_SECRET={S}", lambda: rnd(32, HEX))
simple("heroku-uuid-key", "HEROKU_API_KEY={S}", uuid)
simple("cloudflare-token", "CLOUDFLARE_API_TOKEN={S}", lambda: rnd(40, URLSAFE))
simple("algolia-admin", "algolia admin key: {S}", lambda: rnd(32, HEX))

# ---- headers and command lines -------------------------------------------------------------------
simple("basic-auth-header", "Authorization: Basic {S}", lambda: rnd(28, B64) + "==")
simple("x-api-key", "curl -H 'X-API-Key: {S}' https://api.acme.io", lambda: rnd(32))
simple("cookie", "Cookie: sessionid={S}; csrftoken=abc", lambda: rnd(32, HEX))
simple("curl-user", "curl -u admin:{S} https://jenkins.acme.io/api/json", lambda: pw())
simple("docker-login-p", "docker login registry.acme.io -u ci -p {S}", lambda: pw())
simple("mysql-p", "mysql -h db.acme.io -u root -p{S} shop", lambda: pw())
simple("sshpass", "sshpass -p '{S}' ssh ops@10.0.0.5", lambda: pw())
simple("ssh-keygen-N", "ssh-keygen -t ed25519 -f deploy_key -N '{S}'", lambda: pw())
simple("openssl-passout", "openssl pkcs12 -export -out cert.p12 -passout pass:{S}", lambda: pw())
simple("psql-env", "PGPASSWORD={S} psql -h db.acme.io -U app", lambda: pw())

# ---- prose --------------------------------------------------------------------------------------
simple("prose-admin-password", "the admin password is {S} until Friday", pw)
simple("prose-password-for", "my password for the staging box is {S}", pw)
simple("prose-root-pw", "root pw on the NAS is {S}", pw)
simple("prose-was", "the old vpn password was {S}, it still works", pw)
simple("prose-passphrase", "the backup passphrase: {S}", lambda: words(4))
simple("prose-passphrase-is", "gpg asks for the passphrase, it is {S}", lambda: words(3))
simple("prose-credential-password", "credential: password: {S}", pw)
simple("prose-login-slash-password", "login: admin / password: {S}", pw)
simple("prose-wifi", "office wifi password: {S}", pw)
simple("prose-api-key-is", "the api key is {S}, put it in the header", lambda: rnd(32))
simple("prose-use-token", "use this token for the registry: {S}", lambda: rnd(36))
simple("prose-signing-key", "the signing key is {S}", lambda: rnd(44, B64))
simple("prose-secret-arrow", "secret => {S}", lambda: rnd(24))
simple("zh-password", "数据库密码是 {S}，别外传", pw)
simple("prose-pin-code", "the master passcode is {S}", lambda: str(R.randint(10**7, 10**8)))


@pos("token-split-two-lines")
def _split() -> tuple[str, list[str], list[str]]:
    token = "ghp_" + rnd(36)
    return f"my token is {token[:20]}\n{token[20:]}", [token[:20], token[20:]], ["my token is"]


@pos("key-wrapped-terminal")
def _wrapped() -> tuple[str, list[str], list[str]]:
    key = "sk-proj-" + rnd(56, URLSAFE)
    return f"OPENAI_API_KEY={key[:30]}\n{key[30:]}", [key[:30], key[30:]], []


@pos("prose-key-id-and-secret")
def _kid() -> tuple[str, list[str], list[str]]:
    kid, secret = rnd(20, string.ascii_uppercase + string.digits), rnd(40, B64)
    return f"access key {kid} with secret {secret}", [secret], []


# ---- added after the held-out e2e scenario hc02: a token as a URL's user name, and a sample
# word inside a generated value. A generator of their own, so the values above stay as they were.
R2 = random.Random(2612)


def rnd2(n: int, alphabet: str = B62) -> str:
    return rnd(n, alphabet, R2)


simple(
    "git-token-as-url-user",
    "git remote set-url origin https://{S}@github.com/acme/billing.git",
    lambda: rnd2(40, HEX),
    ("github.com/acme/billing.git",),
)
simple(
    "token-user-oauth-basic",
    "git clone https://{S}:x-oauth-basic@github.com/acme/web.git",
    lambda: rnd2(36),
    ("github.com/acme/web.git",),
)
simple(
    "api-key-as-basic-user",
    "curl -s https://anystring:@api.acme-mail.io/3.0/ping; curl -s https://{S}:@api.acme-mail.io/3.0/lists",
    lambda: rnd2(32, HEX) + "-us21",
    ("api.acme-mail.io/3.0/lists",),
)
simple(
    "error-tracker-dsn",
    "ERROR_DSN=https://{S}@errors.acme.io/api/42",
    lambda: rnd2(32, HEX),
    ("errors.acme.io/api/42",),
)
simple(
    "registry-url-token-user",
    "registry=https://{S}@npm.pkg.acme.io/\nalways-auth=true",
    lambda: rnd2(24),
    ("npm.pkg.acme.io", "always-auth=true"),
)
simple(
    "sample-word-inside-secret",
    "SIGNING_SECRET={S}",
    lambda: rnd2(14) + "Example" + rnd2(14),
)
simple(
    "aws-secret-edited-sample",
    "[ci]\naws_secret_access_key = {S}\nregion = eu-central-1",
    lambda: rnd2(27, B64) + "EXAMPLE" + rnd2(8, B64),
    ("region = eu-central-1",),
)
simple(
    "placeholder-word-inside-token",
    '{{"api_token": "{S}"}}',
    lambda: rnd2(10) + "placeholder" + rnd2(16),
)


# ---- look-alikes that must be kept unchanged ------------------------------------------------------
LOOKALIKES: dict[str, Callable[[], str]] = {}


def keep(name: str, template: str, value: Callable[[], str] | None = None) -> None:
    """A look-alike; `{V}` takes a generated value, doubled braces stand for one."""

    def build() -> str:
        if value is not None:
            return template.format(V=value())
        return template.replace("{{", "{").replace("}}", "}")

    LOOKALIKES[name] = build


def sha(n: int = 40) -> str:
    return rnd(n, HEX)


keep("git-sha", "Fixed in {V}; cherry-pick it onto release/2.3", sha)
keep("git-short-shas", "git log --oneline\n{V} Bump deps\n3f9c2ab Fix flaky test", lambda: sha(7))
keep("git-rev-parse", "$ git rev-parse HEAD\n{V}", sha)
keep("sha256sum", "{V}  dist/app-1.4.0.tar.gz", lambda: sha(64))
keep("docker-digest", "image: ghcr.io/acme/api@sha256:{V}", lambda: sha(64))
keep("npm-integrity", '"integrity": "sha512-{V}=="', lambda: rnd(86, B64))
keep(
    "yarn-lock",
    'lodash@^4.17.21:\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{V}"',
    sha,
)
keep("pip-hash", "requests==2.32.3 --hash=sha256:{V}", lambda: sha(64))
keep(
    "poetry-lock",
    'files = [\n    {{file = "idna-3.7-py3-none-any.whl", hash = "sha256:{V}"}},\n]',
    lambda: sha(64),
)
keep("cargo-lock", 'checksum = "{V}"', lambda: sha(64))
keep("go-sum", "golang.org/x/text v0.14.0 h1:{V}=", lambda: rnd(43, B64))
keep("uuid-prose", "request {V} failed with 502", uuid)
keep("uuid-json", '{{"session_id": "{V}", "status": "ok"}}', uuid)
keep("uuid-key", "idempotency_key: {V}", uuid)
keep("msg-id", "the assistant message msg_{V} had two tool calls", lambda: "01" + rnd(22))
keep(
    "toolu-id", '{{"type": "tool_use", "id": "toolu_{V}", "name": "Bash"}}', lambda: "01" + rnd(22)
)
keep("req-id", "Anthropic returned request_id req_{V}", lambda: "011C" + rnd(20))
keep("stripe-customer", "customer cus_{V} was charged twice", lambda: rnd(14))
keep(
    "stripe-publishable",
    "pk_test_{V} is the publishable key, fine to ship in the bundle",
    lambda: rnd(24),
)
keep("chatcmpl", "id: chatcmpl-{V}", lambda: rnd(29))
keep("openai-file-id", "uploaded as file-{V}", lambda: rnd(24))
keep("aws-arn", "arn:aws:iam::123456789012:role/{V}", lambda: "deploy-role")
keep("aws-instance", "terminated i-{V} and vol-0a1b2c3d4e5f67890", lambda: sha(17))
keep(
    "base64-image",
    'src="data:image/png;base64,{V}"',
    lambda: "iVBORw0KGgoAAAANSUhEUgAA" + rnd(60, B64),
)
keep(
    "css-hash-class",
    '<div class="css-{V} jsx-3141592653">',
    lambda: rnd(6, string.ascii_lowercase + string.digits),
)
keep("webpack-chunk", "main.{V}.chunk.js 143 KiB", lambda: sha(8))
keep("youtube", "watch https://www.youtube.com/watch?v={V}", lambda: rnd(11, URLSAFE))
keep("gist-url", "see https://gist.github.com/octocat/{V}", lambda: sha(32))
keep("semver", "upgrade to 4.17.21 and pin node 20.11.1")
keep("ip-port", "listening on 10.0.12.7:8443 and [::1]:9000")
keep(
    "prose-password-reset",
    "The password reset flow sends an email; make sure the token expiry is configurable.",
)
keep("prose-no-value", "Never paste your password into the chat, use the secret manager instead.")
keep("prose-password-is-required", "the password is required for the admin account")
keep("prose-password-is-wrong", "the password is wrong, try resetting it")
keep("prose-password-is-stored", "The password is stored in 1Password under 'staging db'.")
keep("prose-token-expired", "the token is expired, so the CLI asks you to log in again")
keep("prose-api-key-missing", "api key is missing from the environment (OPENAI_API_KEY)")
keep("prose-passphrase-prompt", "ssh-add asks for the passphrase every time after a reboot")
keep("prose-credentials-rotated", "credentials were rotated on Monday; nothing to do")
keep("prose-secret-sauce", "the secret is to batch the writes before the checkpoint")
keep("prose-token-bucket", "the token bucket refills at 10 tokens per second")
keep("prose-key-point", "the key point is that the cache key includes the tenant id")
keep("prose-auth-flow", "auth: the middleware checks the session cookie first")
keep("prose-password-policy", "password: at least 12 characters, one digit, one symbol")
keep("prose-pass-of", "second pass: remove the dead branches")
keep("prose-netrc-doc", "netrc files hold a machine, a login and a password for each host")
keep("prose-login-word", "login with your SSO account, then the password prompt goes away")
keep("placeholder-env", "OPENAI_API_KEY=your-api-key-here")
keep("placeholder-angle", "export GITHUB_TOKEN=<your token>")
keep("placeholder-var", "PASSWORD=${DB_PASSWORD}")
keep("placeholder-stars", "password: ********")
keep("placeholder-changeme", "POSTGRES_PASSWORD=changeme")
keep("placeholder-xxx", 'api_key = "xxxxxxxxxxxxxxxxxxxx"')
keep("placeholder-template", "token: {{{{ .Values.token }}}}")
keep("placeholder-vault-ref", "password: vault:secret/data/db#password")
keep("placeholder-env-ref", "password: !ENV ${{DB_PASS}}")
keep("placeholder-example-aws", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE")
keep("placeholder-redacted", "token: [REDACTED]")
keep("placeholder-dots", 'password = "..."')
keep("code-password-var", "password = get_password(user)")
keep("code-token-attr", "token = self.session.token")
keep("code-env-lookup", 'api_key = os.environ["OPENAI_API_KEY"]')
keep("code-getenv", 'secret := os.Getenv("APP_SECRET")')
keep("code-param-type", "def login(username: str, password: str) -> Session:")
keep("code-ts-type", "interface Creds {{ token: string; password?: string }}")
keep("code-dict-key", 'headers = {{"Authorization": f"Bearer {{token}}"}}')
keep("code-compare", "if password == confirm_password:")
keep("code-hash-call", "hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt())")
keep("code-cli-flag-help", '@click.option("--token", envvar="GITHUB_TOKEN", help="GitHub token")')
keep("code-argparse", 'parser.add_argument("--password", required=True)')
keep("code-sql-column", "ALTER TABLE users ADD COLUMN password_hash VARCHAR(60) NOT NULL;")
keep("code-regex", r'TOKEN_RE = re.compile(r"gh[pousr]_[A-Za-z0-9]{{36}}")')
keep("code-test-name", "def test_parseHTTP2ResponseHeaders_handlesContinuation():")
keep("code-camel-ident", "const useAuthTokenRefresh2FactorFlow = () => {{}}")
keep("code-long-snake", "PYTEST_ADDOPTS_for_integration_suite_v2 = True")
keep("code-cache-key", 'cache_key = f"user:{{user_id}}:v2"')
keep("code-public-key", "public_key = load_pem_public_key(data)")
keep("code-sort-key", "rows.sort(key=lambda r: r.updated_at)")
keep("code-next-page-token", 'next_page_token = resp.get("nextPageToken")')
keep("code-csrf-tpl", '<input type="hidden" name="csrf_token" value="{{{{ csrf_token() }}}}">')
keep("code-jwt-decode", 'claims = jwt.decode(token, key, algorithms=["RS256"])')
keep("code-secret-manager", "secret = client.access_secret_version(name=name).payload.data")
keep("yaml-token-ref", "auth:\n  token: ${{TOKEN}}\n  ttl: 3600")
keep("yaml-password-file", "postgres:\n  password_file: /run/secrets/db_password")
keep(
    "yaml-secret-ref",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password",
)
keep("yaml-token-bool", "features:\n  token: true\n  password: false")
keep("ini-no-secret", "[server]\nhost = 0.0.0.0\nport = 8080\nworkers = 4")
keep("toml-deps", '[tool.poetry.dependencies]\npython = "^3.11"\nhttpx = "^0.27"')
keep("dotenv-plain", "NODE_ENV=production\nPORT=3000\nLOG_LEVEL=info")
keep("dotenv-url-no-pw", "DATABASE_URL=postgres://app@db.internal:5432/app")
keep("url-no-password", "https://user@example.com/path and ssh://git@github.com/acme/app.git")
keep("url-query-plain", "https://api.acme.io/v1/search?q=redis+cluster&page=2&per_page=50")
keep("netrc-like-prose", "machine learning login page password field is hidden by CSS")
keep("pgpass-doc", "each .pgpass line is hostname:port:database:username:password")
keep("commit-msg", "Merge pull request #482 from acme/feature/token-refresh")
keep("branch-name", "git checkout -b fix/password-reset-email-2024")
keep("file-path", "edit src/auth/password_reset_token_service.py line 42")
keep("log-line", "2026-01-05T10:22:01Z INFO auth: token refreshed for user 1842 (ttl=3600s)")
keep("log-level-line", "WARN secret rotation skipped: no secrets due")
keep("http-status", "POST /api/token 401 Unauthorized in 12ms")
keep("k8s-events", 'Normal  Pulled  2m  kubelet  Successfully pulled image "nginx:1.25" in 3.2s')
keep(
    "stack-trace",
    'File "/app/auth.py", line 88, in verify_token\n    raise InvalidToken("signature mismatch")',
)
keep("pytest-output", "tests/test_auth.py::test_token_expiry PASSED [ 42%]")
keep("color-hex", "primary: #1e90ff; accent: #ff6347; bg: #0b0c10")
keep("number-list", "latencies: 12, 15, 18, 200, 1400 ms")
keep("phone-like", "call +1 415 555 0134 for the on-call")
keep("email", "send it to ops@acme.io and cc security@acme.io")
keep("mac-address", "eth0 link/ether 02:42:ac:11:00:02")
keep("ipv6", "inet6 fe80::42:acff:fe11:2/64 scope link")
keep("isbn", "ISBN 978-0-13-235088-4")
keep("password-hash-bcrypt-doc", "bcrypt hashes start with $2b$12$ followed by the salt and hash")
keep("chinese-prose", "请帮我看看为什么这个接口返回 401，token 应该是对的。")
keep("chinese-no-value", "密码需要至少十二位，包含数字和符号。")
keep(
    "diff-line",
    "-    password = request.form['password']\n+    password = request.form.get('password', '')",
)
keep("markdown-table", "| key | value |\n|-----|-------|\n| retries | 3 |\n| timeout | 30s |")
keep("base64-config", 'config: eyJkZWJ1ZyI6IGZhbHNlfQ== (just {{"debug": false}})')
keep("python-bytes", "b'\\x89PNG\\r\\n\\x1a\\n'")
keep("ssh-public-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{V} ops@laptop", lambda: rnd(43, B64))
keep(
    "pem-public-key",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{V}\n-----END PUBLIC KEY-----",
    lambda: rnd(40, B64),
)
keep(
    "certificate",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE{V}\n-----END CERTIFICATE-----",
    lambda: rnd(40, B64),
)
keep(
    "gpg-fingerprint",
    "gpg --recv-keys 4AEE18F83AFDEB23 (fingerprint 5DE3 E050 9C47 EA3C F04A 42D3 4AEE 18F8 3AFD EB23)",
)
keep(
    "totp-doc",
    "otpauth URIs carry the secret parameter, e.g. otpauth://totp/Label?secret=...&issuer=X",
)
keep("license-key-doc", "the license key field accepts XXXXX-XXXXX-XXXXX-XXXXX")
keep("sentry-dsn-public", "SENTRY_DSN=https://examplePublicKey@o0.ingest.sentry.io/0")
keep("firebase-web-config", 'projectId: "acme-web", storageBucket: "acme-web.appspot.com"')
keep("algolia-app-id", "ALGOLIA_APP_ID=YSHWHB3QKF")
# A Twilio account SID was a look-alike until round 39: it is the user-name half of the
# account's basic auth beside the auth token, masked like an access key id (eval/RESULTS.md,
# round 39 at the end; e2e-heldout13). positives.jsonl holds it as "twilio-account-sid".
keep(
    "google-client-id",
    "client_id: 123456789012-{V}.apps.googleusercontent.com",
    lambda: rnd(32, string.ascii_lowercase + string.digits),
)
keep("slack-channel-ids", "post to C024BE91L and mention U2147483697")
keep("jira-ticket", "see PROJ-1234 and OPS-88 for the token rotation plan")
keep("k8s-pod-name", "api-7d9f8c6b5-x2k4p   1/1     Running   0   3d")
keep("docker-container-id", "CONTAINER ID {V}   nginx:1.25   Up 3 hours", lambda: sha(12))
keep("build-id", "build_id=20260105.3 artifact=app-{V}.whl", lambda: sha(8))
keep("random-filename", "uploaded to s3://acme-logs/2026/01/05/{V}.json.gz", uuid)
keep("session-cookie-name", "the cookie is called sessionid and is HttpOnly")
keep("header-doc", "send Authorization: Bearer <token> on every request")
keep("curl-no-secret", "curl -sS -H 'Accept: application/json' https://api.acme.io/health")
keep("docker-login-stdin", "echo $CR_PAT | docker login ghcr.io -u acme --password-stdin")
keep("mysql-prompt", "mysql -h db.acme.io -u root -p shop")
keep("ssh-keygen-empty", "ssh-keygen -t ed25519 -N '' -f ci_key")
keep("openssl-env-pass", "openssl pkcs12 -export -passout env:P12_PASS -out cert.p12")
keep("psql-no-pw", "PGHOST=db.acme.io PGUSER=app psql orders")
keep("password-length-config", "PASSWORD_MIN_LENGTH=12\nTOKEN_TTL_SECONDS=3600")
keep("token-count", "prompt tokens: 18342, completion tokens: 912")
keep("max-tokens", "max_tokens: 4096")
keep("auth-type", "auth_type: oauth2\nauth_method: client_secret_basic")
keep("secret-name-k8s", "secretName: api-tls-cert")
keep("key-algorithm", "key_algorithm: RSA_4096\nkey_usage: SIGN_VERIFY")
keep("private-key-path", "private_key_path: ~/.ssh/id_ed25519")
keep("credentials-file", "GOOGLE_APPLICATION_CREDENTIALS=/secrets/sa.json")
keep("token-endpoint", "token_endpoint: https://auth.acme.io/oauth/token")
keep("token-type", '{{"token_type": "Bearer", "expires_in": 3600, "scope": "read write"}}')
keep("secret-version", "secret_version: 7\nsecret_project: acme-prod")
keep("passphrase-prompt-text", "Enter passphrase for key '/home/ops/.ssh/id_ed25519':")
keep(
    "password-field-html", '<input type="password" name="password" autocomplete="current-password">'
)
keep("password-env-name-list", "needs DB_PASSWORD, REDIS_PASSWORD and SMTP_PASSWORD set")
keep("pass-manager-cmd", "pass show acme/staging/db | head -1")
keep("passwd-file", "grep ops /etc/passwd\nops:x:1001:1001:Ops:/home/ops:/bin/bash")
keep("shadow-doc", "the /etc/shadow field after the user name is the hash")
keep("htpasswd-cmd", "htpasswd -c /etc/nginx/.htpasswd admin")
keep("wifi-prose", "the wifi password is on the whiteboard in the kitchen")
keep("admin-prose", "the admin password is in the team vault, ask Dana")
keep("passphrase-prose", "choose a passphrase of four random words")
keep("password-was-prose", "my password was reset yesterday")
keep("credential-helper", "git config --global credential.helper osxkeychain")
keep("credential-colon", "credential: use the keychain, not a file")
keep("token-colon-word", "token: see the ops runbook, section 3")
keep("token-colon-bool", "token: none")
keep("split-sha-lines", "commits:\n1caedf7a70030f1e\n03ebfaf3e596d723")
keep("wrapped-prose", "The deploy failed because the\nmigration lock was held")
keep("long-word-wrap", "supercalifragilisticexpialidocious\nantidisestablishmentarianism")
keep(
    "base64-wrapped-cert",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\nbG9uZ2VyIGJhc2U2NCBsaW5l\n-----END CERTIFICATE-----",
)
keep("identifier-prefix-underscore", "call api_v2_getUserProfileById and api_v2_listOrganizations")
keep("prefixed-version", "bumped app_v2_2026_01_05_rc1 to production")
keep("test-fixture-name", "fixture tmp_path_factory_session_scoped_cache_dir_v3")
keep("react-key", "<Item key={{item.id}} token={{theme.token}} />")
keep("env-names-only", "OPENAI_API_KEY, ANTHROPIC_API_KEY and GEMINI_API_KEY are read at startup")
keep("masked-output", "token: ghp_****************************abcd (last 4 shown)")
keep("redacted-marker", "the deploy token is [REDACTED:github-token]")
keep("hash-in-prose-key", "the cache key is {V}", lambda: sha(40))
keep("etag", 'ETag: "{V}"', lambda: sha(32))
keep("content-md5", "Content-MD5: {V}", lambda: rnd(22, B64) + "==")
keep("x-request-id", "X-Request-Id: {V}", uuid)
keep("trace-id", "traceparent: 00-{V}-00f067aa0ba902b7-01", lambda: sha(32))
keep("nonce-html", '<script nonce="{V}">', lambda: rnd(22, B64) + "==")
keep("pkce-doc", "code_challenge_method=S256 and code_challenge from the verifier")
keep("ulid", "order 01HN8Z4XK2Q9V7M3T6R5W0YBCD created")
keep("nanoid", "short link https://acme.io/s/V1StGXR8_Z5jdHi6B-myT")
keep("npm-package", "npm i @acme/auth-token-utils@3.2.1")
keep("pypi-package", "pip install types-auth0-python==4.7.1.20240106")
keep("docker-tag", "docker pull ghcr.io/acme/token-service:2026.01.05-3f9c2ab")
keep(
    "terraform-resource",
    'resource "aws_secretsmanager_secret" "db" {{ name = "prod/db/password" }}',
)
keep("vault-path", "vault kv get secret/data/prod/db")
keep("helm-values", "helm upgrade api ./chart --set image.tag=1.4.0 --set replicas=3")
keep("ansible-vault-ref", 'db_password: "{{{{ vault_db_password }}}}"')
keep("github-actions-secret", "password: ${{{{ secrets.REGISTRY_PASSWORD }}}}")
keep("ci-masked-log", "Run docker login -u acme -p *** ghcr.io")
keep("sql-password-query", "SELECT id FROM users WHERE password_hash = crypt($1, password_hash)")
keep("graphql", "mutation {{ login(email: $email, password: $password) {{ token }} }}")
keep("openapi", "securitySchemes:\n  bearerAuth:\n    type: http\n    scheme: bearer")
keep("prose-key-id-only", "the key id in the JWT header is kid=2024-07-rotation")
keep("prose-long-identifier", "rename validateOAuth2AuthorizationCodeGrantRequest for clarity")
keep("prose-slash-path", "moved AKIA-rotation-runbook.md to docs/security/rotation.md")
keep("hex-color-list", "palette 0x1e90ff 0xff6347 0x0b0c10 0x66fcf1")


# ---- added after hc02 (see above): names in URLs and sample words with no random rest
keep(
    "url-service-user",
    "https://ci-runner-7@builds.acme.io/job/17 and ssh://deploy@10.0.4.2:2222/srv/app.git",
)
keep("url-dotted-user", "ftp://jane.doe.contractor@files.acme.io/incoming")
keep("url-numeric-user", "https://1234567890123456@metrics.acme.io/ping")
keep("url-short-hex-user", "https://{V}@cache.acme.io/health", lambda: rnd2(8, HEX))
keep("dsn-template", "ERROR_DSN=https://<public-key>@errors.acme.io/42")
keep("dsn-hint-user", "SENTRY_DSN=https://yourPublicKeyHere@o0.ingest.sentry.io/0")
keep("placeholder-example-slug", "API_KEY=example-key-123")
keep("placeholder-example-camel", "client_secret: exampleClientSecretValue12345")
keep("placeholder-example-words", "password: ExamplePasswordForTheReadme2024")
keep("placeholder-example-upper", "TOKEN=EXAMPLE_TOKEN_VALUE_123")


def split_of(name: str) -> str:
    digest = hashlib.sha256(name.encode()).digest()
    return "heldout" if digest[0] % 3 == 0 else "dev"


def main() -> None:
    with (HERE / "positives.jsonl").open("w") as fh:
        for name, build in POSITIVES.items():
            text, secrets, kept = build()
            record = {"format": name, "split": split_of(name), "text": text}
            record |= {"secrets": secrets, "keep": kept}
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    with (HERE / "lookalikes.jsonl").open("w") as fh:
        for name, build in LOOKALIKES.items():
            record = {"format": name, "split": split_of(name), "text": build()}
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{len(POSITIVES)} secret formats, {len(LOOKALIKES)} look-alikes")


if __name__ == "__main__":
    main()
