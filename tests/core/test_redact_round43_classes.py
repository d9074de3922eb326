"""Round 43's leak classes, each as a class on values and phrasings of our own (the values drawn
from /dev/urandom), and the look-alikes of each class that must stay.

Classes: WordPress-style salts and keys (`define( 'NONCE_SALT', '…' )`, 64 characters of
letters, digits, symbols and spaces; any define(), const, subscript or `wp config set` of a
*_KEY / *_SALT / *_SECRET with a generated value); credential headers in headers maps (an
OpenTelemetry collector's `headers:` block with `x-honeycomb-team`, `x-api-key`,
`dd-api-key`, …, JSON, HCL, TOML tables, `name:`/`value:` lists, Fluent Bit's and nginx's
`header <name> <value>`, curl's `-H`, a raw request's header lines); passwords, secrets and
tokens of random letters only (`password = BqxDp…` in an INI file, `db_pass: eeuh…`, "the
admin password is wcUr…", `pw: …`), where words, placeholders and code names stay; Pushover
user and app keys named by their slot (`user key`, `app token`, PUSHOVER_*, Apprise's
`pover://`) with no "Pushover" nearby.

Every leak here was stored before the round's change, and every look-alike stands beside a
leak of the same class, so it fails until the class is handled."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_redact_round41b_classes import assert_masked_keeping

from recallnest.core.redact import redact

# WordPress-style salts: 64 characters of its generator's alphabet (letters, digits, symbols
# and the space), from /dev/urandom.
SALT_1 = "F&zW)>]#N:/hy3);wkJe}NR3vgpC};TU2x7NeU<cz|]bmeHO#ueC.$?tg{%zVv@f"
SALT_2 = "S5LMuVTP]]pi]#b%7d=~sdFk)k5_U~s[7q<dRsz/@CsH$[Q6m3tonRO=v%%q>Ios"
SALT_3 = "Bt&tw ]lY<&mr.`9< `M{w#cr^KF<~-KSD?w]ANKUz2ucfoC#38IlG:zBhGM8*2."
SALT_4 = "$C}E`6+Fm<~#AX`XT=T?{}Fs*7 re<5H(Ag<,I.*~(:]404p^<%s{Gl_=XW&wVo"
SALT_5 = "cfv$X*LQtrcFYT*|uZ*.8$N0 #}R7v;kNf4{kpEDL(WbZ)z>MkTq{%;:r& OUjjd"
SALT_6 = "|6!b%?wVg2`4[0.p!Y?ui>Z :.WcBj:!@Fe*b1;71:D}0m2s=ErXUWBiOA$3L.}K"

LEAKS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # --- WordPress salts and keys, and other defined or const salts, keys and secrets -------
    "wp-config-aligned-auth-key": (
        "$table_prefix = 'wp_';\n"
        "define( 'AUTH_KEY',         '" + SALT_1 + "' );\n"
        "define( 'WP_DEBUG', false );",
        SALT_1,
        ("$table_prefix = 'wp_';", "define( 'AUTH_KEY',", "define( 'WP_DEBUG', false );"),
    ),
    "wp-config-nonce-salt-double-quoted": (
        'define( "NONCE_SALT", "' + SALT_2 + '" );',
        SALT_2,
        ('define( "NONCE_SALT", ',),
    ),
    "wp-config-salt-with-spaces": (
        "define('SECURE_AUTH_SALT', '" + SALT_3 + "');",
        SALT_3,
        ("define('SECURE_AUTH_SALT', ",),
    ),
    # A salt that opens with `$` or holds `{}` and `%s` by chance is no placeholder.
    "wp-config-salt-placeholder-chars": (
        "define('LOGGED_IN_KEY', '" + SALT_4 + "');",
        SALT_4,
        ("define('LOGGED_IN_KEY', ",),
    ),
    # A salt wrapped in `<…>` or holding `x:://` by chance is no template and no URL.
    "wp-config-salt-wrapped-by-chance": (
        "define( 'AUTH_SALT', '<mggVD_?O4-SaviT?.1LHPdtlov9j5[vd)iq(%GbHRTA, 9XBwN`OEeGM5!n8>' );",
        "<mggVD_?O4-SaviT?.1LHPdtlov9j5[vd)iq(%GbHRTA, 9XBwN`OEeGM5!n8>",
        ("define( 'AUTH_SALT', ",),
    ),
    "wp-config-salt-colon-slashes": (
        "define( 'NONCE_KEY', '^WHkWw 2:XmC>%nK716S+u%5=[1/*]Dd<?;,Kp:://ud&E/zoID,&Lz<(9~.a' );",
        "^WHkWw 2:XmC>%nK716S+u%5=[1/*]Dd<?;,Kp:://ud&E/zoID,&Lz<(9~.a",
        ("define( 'NONCE_KEY', ",),
    ),
    "php-class-const-salt": (
        "final class Tokens {\n    private const HASH_SALT = '" + SALT_5 + "';\n}",
        SALT_5,
        ("private const HASH_SALT = ",),
    ),
    "js-const-cookie-key": (
        'const COOKIE_KEY = "AP9m(<>D5]7#W;OI3S5wPl0x)H@{/d;Wq&[+{Prs";',
        "AP9m(<>D5]7#W;OI3S5wPl0x)H@{/d;Wq&[+{Prs",
        ("const COOKIE_KEY = ",),
    ),
    "compose-wordpress-env-salt": (
        "services:\n  wordpress:\n    environment:\n"
        "      WORDPRESS_DB_NAME: wordpress\n"
        "      WORDPRESS_AUTH_SALT: '" + SALT_6 + "'",
        SALT_6,
        ("WORDPRESS_DB_NAME: wordpress", "WORDPRESS_AUTH_SALT: "),
    ),
    "env-hash-salt": (
        "HASHIDS_SALT=im19JZtgZZ0s}%cU}NGBoW_XKa63@,%%m*?D;-72\nHASHIDS_MIN_LENGTH=8",
        "im19JZtgZZ0s}%cU}NGBoW_XKa63@,%%m*?D;-72",
        ("HASHIDS_MIN_LENGTH=8",),
    ),
    "wp-cli-config-set-salt": (
        "wp config set NONCE_SALT '"
        + SALT_2
        + "' --type=constant\nwp config set WP_DEBUG true --raw",
        SALT_2,
        ("wp config set NONCE_SALT ", "wp config set WP_DEBUG true --raw"),
    ),
    # A salt or secret key assigned to a subscript (Drupal's settings.php, Flask's config).
    "drupal-hash-salt": (
        "$settings['hash_salt'] = '@Y_6~%WKO!/Wf3=HmZPu_B|[<rF(jl1j~w<Y0U}z';\n"
        "$settings['update_free_access'] = FALSE;",
        "@Y_6~%WKO!/Wf3=HmZPu_B|[<rF(jl1j~w<Y0U}z",
        ("$settings['hash_salt'] = ", "$settings['update_free_access'] = FALSE;"),
    ),
    "flask-config-secret-key": (
        "app.config['SESSION_TYPE'] = 'filesystem'\n"
        "app.config['SECRET_KEY'] = 'NUL8OdbObYSFSdoHXFCHN9gRIVdnGC'",
        "NUL8OdbObYSFSdoHXFCHN9gRIVdnGC",
        ("app.config['SESSION_TYPE'] = 'filesystem'", "app.config['SECRET_KEY'] = "),
    ),
    # --- Credential headers in YAML / JSON / HCL headers maps -------------------------------
    "otel-yaml-honeycomb-team": (
        "exporters:\n  otlp:\n    endpoint: api.honeycomb.io:443\n    headers:\n"
        "      x-honeycomb-team: pKM1KdVWlTKskGf5j6qLt3\n      x-honeycomb-dataset: tide-api\n",
        "pKM1KdVWlTKskGf5j6qLt3",
        ("x-honeycomb-dataset: tide-api", "endpoint: api.honeycomb.io:443", "x-honeycomb-team: "),
    ),
    "otel-yaml-quoted-team": (
        "exporters:\n  otlphttp/hny:\n    headers:\n"
        '      "x-honeycomb-team": "Tg88qw9HROsWJqNsAsMfTN"\n'
        '      "x-honeycomb-dataset": "berths"\n',
        "Tg88qw9HROsWJqNsAsMfTN",
        ('"x-honeycomb-dataset": "berths"',),
    ),
    "otel-yaml-team-letters-only": (
        "  otlp:\n    headers:\n      x-honeycomb-team: yczyempkfgmhobsktuwj\n",
        "yczyempkfgmhobsktuwj",
        ("x-honeycomb-team: ",),
    ),
    "otel-yaml-vendor-headers": (
        "    headers:\n      dd-api-key: be6a7c9aca3c0053f6552e4c5c8ae151\n"
        "      x-auth-token: bqdvcrehcyuohtlpdbfq\n      x-request-id: collector-7\n",
        "bqdvcrehcyuohtlpdbfq",
        ("x-request-id: collector-7",),
    ),
    "otel-json-headers": (
        '{"exporters": {"otlp": {"endpoint": "api.honeycomb.io:443", "headers": '
        '{"x-honeycomb-team": "oLIPtlitb8d6vvHCpqEFsU", "x-honeycomb-dataset": "pier"}}}}',
        "oLIPtlitb8d6vvHCpqEFsU",
        ('"x-honeycomb-dataset": "pier"', '"endpoint": "api.honeycomb.io:443"'),
    ),
    "yaml-flow-headers-api-key": (
        "exporter:\n  headers: {api-key: ctemklfzigdzkkol, x-scope-orgid: tenant-4}\n",
        "ctemklfzigdzkkol",
        ("x-scope-orgid: tenant-4}",),
    ),
    "hcl-headers-map": (
        'exporter "otlp" {\n  headers = {\n    "x-honeycomb-team" = "Oq49neGpJlbTIvlZ2Swts7"\n'
        '    "x-honeycomb-dataset" = "gate"\n  }\n}',
        "Oq49neGpJlbTIvlZ2Swts7",
        ('"x-honeycomb-dataset" = "gate"',),
    ),
    "yaml-headers-name-value-list": (
        "headers:\n  - name: x-api-key\n    value: noglozoboxjsmezu\n"
        "  - name: x-tenant\n    value: marina\n",
        "noglozoboxjsmezu",
        ("- name: x-api-key", "value: marina"),
    ),
    "postman-header-list": (
        '"header": [{"key": "X-Honeycomb-Team", "value": "a2fc268ba5e785c9c60cfe766d99ede5", '
        '"type": "text"}, {"key": "Content-Type", "value": "application/json"}]',
        "a2fc268ba5e785c9c60cfe766d99ede5",
        ('"value": "application/json"', '"key": "X-Honeycomb-Team"'),
    ),
    "yaml-authorization-api-token": (
        "    headers:\n      Authorization: Api-Token yjfjvclsbyxxeacdmqvtrwkz\n",
        "yjfjvclsbyxxeacdmqvtrwkz",
        ("Authorization: Api-Token ",),
    ),
    "curl-honeycomb-header": (
        'curl https://api.honeycomb.io/1/auth -H "X-Honeycomb-Team: xfklkrvjvqrcgbtd"',
        "xfklkrvjvqrcgbtd",
        ("https://api.honeycomb.io/1/auth", "X-Honeycomb-Team: "),
    ),
    "fluent-bit-header-line": (
        "[OUTPUT]\n    Name  http\n    Host  api.honeycomb.io\n"
        "    Header X-Honeycomb-Team ncsatghraycwlrryow\n    Header X-Honeycomb-Dataset quay\n",
        "ncsatghraycwlrryow",
        ("Header X-Honeycomb-Dataset quay", "Host  api.honeycomb.io"),
    ),
    "nginx-proxy-set-header": (
        'location /otel/ {\n  proxy_set_header X-Api-Key "njuerzarinddetpkom";\n'
        "  proxy_pass https://collector:4318/;\n}",
        "njuerzarinddetpkom",
        ("proxy_pass https://collector:4318/;",),
    ),
    "toml-headers-table": (
        '[sinks.honeycomb.request.headers]\n"x-honeycomb-team" = "ASLHtElcRdztYC8W2v3PvU"\n'
        '"x-honeycomb-dataset" = "quay"\n\n[sinks.honeycomb.encoding]\ncodec = "json"',
        "ASLHtElcRdztYC8W2v3PvU",
        ('"x-honeycomb-dataset" = "quay"', 'codec = "json"'),
    ),
    "raw-request-header-line": (
        "POST https://api.honeycomb.io/1/batch/quay HTTP/1.1\n"
        "X-Honeycomb-Team: ubudoxhmdmayndifrv\nContent-Type: application/json",
        "ubudoxhmdmayndifrv",
        ("Content-Type: application/json", "POST https://api.honeycomb.io/1/batch/quay"),
    ),
    "header-set-by-call": (
        'req.Header.Set("X-Honeycomb-Team", "daglzszrdbpepvvhze")\n'
        'req.Header.Set("Content-Type", "application/json")',
        "daglzszrdbpepvvhze",
        (
            'req.Header.Set("Content-Type", "application/json")',
            'req.Header.Set("X-Honeycomb-Team", ',
        ),
    ),
    # --- Passwords, secrets and tokens of random letters only -------------------------------
    "ini-spaced-password-mixed": (
        "[client]\nuser = backup\npassword = BqxDpHVCFWAKOnHr\nhost = db.tide.lan",
        "BqxDpHVCFWAKOnHr",
        ("user = backup", "host = db.tide.lan"),
    ),
    "ini-spaced-secret-lower": (
        "[auth]\nclient_secret = rkvgwzbmhedcrrqg\nclient_id = tide-web",
        "rkvgwzbmhedcrrqg",
        ("client_id = tide-web",),
    ),
    "pass-name-lower-letters": (
        "db_pass: eeuhzmxsaauqqdwl\ndb_user: tide",
        "eeuhzmxsaauqqdwl",
        ("db_user: tide",),
    ),
    "token-lower-letters": (
        "slack:\n  token: ctemklfzigdzkkolwqpx\n  channel: ops",
        "ctemklfzigdzkkolwqpx",
        ("channel: ops",),
    ),
    "api-key-upper-letters-quoted": (
        'config.api_key = "QBWWXCEBBLAWBNNO"',
        "QBWWXCEBBLAWBNNO",
        ("config.api_key = ",),
    ),
    "prose-password-mixed-letters": (
        "the admin password is wcUrKJRUnOYVJDkT for now, rotate it friday",
        "wcUrKJRUnOYVJDkT",
        ("the admin password is", "rotate it friday"),
    ),
    "prose-token-lower-letters": (
        "the webhook token is xfklkrvjvqrcgbtdmnzq, the channel is #alerts",
        "xfklkrvjvqrcgbtdmnzq",
        ("the channel is #alerts",),
    ),
    "netrc-password-letters": (
        "machine ftp.tide.lan login mirror password CQKsXBSGJVrjnCan",
        "CQKsXBSGJVrjnCan",
        ("machine ftp.tide.lan login mirror",),
    ),
    "zh-password-spaced-letters": (
        "测试库账号 tide_ro，密码 EDtDqPLujcZkHuWC，只读",
        "EDtDqPLujcZkHuWC",
        ("测试库账号 tide_ro", "只读"),
    ),
    "login-pair-letters": (
        "the nas login is backup / BGmHDqmKTxItJTOi if the share drops",
        "BGmHDqmKTxItJTOi",
        ("if the share drops",),
    ),
    # Random letters that happen to hold a secret word are no descriptive placeholder.
    "password-letters-holding-key": (
        "password: mtzkeyqwxtdjxgzr",
        "mtzkeyqwxtdjxgzr",
        ("password: ",),
    ),
    "pw-slot-letters": (
        "mqtt:\n  user: quay-sensor\n  pw: hFgOeoOyknsrYV",
        "hFgOeoOyknsrYV",
        ("user: quay-sensor",),
    ),
    "pass-slot-letters": (
        "ftp:\n  user: quay-cam\n  pass: OajlqFTzoMIUso",
        "OajlqFTzoMIUso",
        ("user: quay-cam",),
    ),
    # --- Pushover keys named by their slot, no "Pushover" nearby ----------------------------
    "user-key-prose": (
        "notify script: user key: uxtnxolmv9h7kgzyo5drdhpv9nu3m7, sound: cosmic",
        "uxtnxolmv9h7kgzyo5drdhpv9nu3m7",
        ("sound: cosmic",),
    ),
    "app-token-prose-two-digits": (
        "the app token is abtbntiavftidrugniff9d6favbgqk and the user key is "
        "uz8hploawapbolncn8kmux9t88zesn",
        "abtbntiavftidrugniff9d6favbgqk",
        ("and the user key is",),
    ),
    "pushover-app-env": (
        "PUSHOVER_APP=avxykmhdp7yv4afucanvsjhqpjcqwe\nPUSHOVER_SOUND=cosmic",
        "avxykmhdp7yv4afucanvsjhqpjcqwe",
        ("PUSHOVER_SOUND=cosmic",),
    ),
    "curl-form-user-two-digits": (
        'curl -s -F "token=$PO_TOKEN" -F "user=u8vztxbhdujkrnpcawurlypdqxkmsj" '
        '-F "message=pump 2 offline" https://api.pushover.net/1/messages.json',
        "u8vztxbhdujkrnpcawurlypdqxkmsj",
        ('"message=pump 2 offline"', "https://api.pushover.net/1/messages.json"),
    ),
    "apprise-pover-url": (
        "APPRISE_URLS=pover://up48evrst8cek70gnuen0ml4a45nvc@a24wj47kq5gxxs7ucc3m8an6oyoidx",
        "a24wj47kq5gxxs7ucc3m8an6oyoidx",
        ("APPRISE_URLS=pover://",),
    ),
    "apprise-pover-url-user": (
        "APPRISE_URLS=pover://up48evrst8cek70gnuen0ml4a45nvc@a24wj47kq5gxxs7ucc3m8an6oyoidx",
        "up48evrst8cek70gnuen0ml4a45nvc",
        ("APPRISE_URLS=pover://",),
    ),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_masked(name: str) -> None:
    text, secret, kept = LEAKS[name]
    assert_masked_keeping(text, secret, *kept)


# Each look-alike beside a leak of the same class, so the test fails until the class is
# handled and keeps failing if the rule grows too wide.
LOOKALIKES: dict[str, tuple[str, str, str]] = {
    # WordPress settings that are no secret, its placeholder, a call, a cache prefix.
    "wp-config-settings": (
        "define( 'DB_NAME', 'wordpress' );\ndefine( 'WP_DEBUG', true );\n"
        "define( 'DB_CHARSET', 'utf8mb4' );\n$table_prefix = 'wp_';\n"
        "define( 'AUTH_KEY',         '" + SALT_1 + "' );",
        SALT_1,
        "define( 'DB_NAME', 'wordpress' );\ndefine( 'WP_DEBUG', true );\n"
        "define( 'DB_CHARSET', 'utf8mb4' );\n$table_prefix = 'wp_';",
    ),
    "wp-config-placeholder-and-env": (
        "define( 'NONCE_SALT',       'put your unique phrase here' );\n"
        "define( 'AUTH_SALT', getenv_docker('WORDPRESS_AUTH_SALT', '') );\n"
        "define( 'WP_CACHE_KEY_SALT', 'tide.example.org:' );\n"
        "define( 'SECURE_AUTH_SALT', '" + SALT_2 + "' );",
        SALT_2,
        "define( 'NONCE_SALT',       'put your unique phrase here' );\n"
        "define( 'AUTH_SALT', getenv_docker('WORDPRESS_AUTH_SALT', '') );\n"
        "define( 'WP_CACHE_KEY_SALT', 'tide.example.org:' );",
    ),
    "salt-templates": (
        "define( 'AUTH_KEY', '<your-unique-phrase-here>' );\n"
        "WORDPRESS_NONCE_SALT: '${WP_NONCE_SALT}'\n"
        "SECURE_AUTH_SALT: \"{{ lookup('env', 'WP_SECURE_AUTH_SALT') }}\"\n"
        "AUTH_SALT: '" + SALT_1 + "'",
        SALT_1,
        "define( 'AUTH_KEY', '<your-unique-phrase-here>' );\n"
        "WORDPRESS_NONCE_SALT: '${WP_NONCE_SALT}'\n"
        "SECURE_AUTH_SALT: \"{{ lookup('env', 'WP_SECURE_AUTH_SALT') }}\"",
    ),
    "salt-code-and-numbers": (
        "SALT_ROUNDS = 12\nsalt = bcrypt.gensalt()\nconst SALT_LENGTH = 16;\n"
        "HASHIDS_SALT=im19JZtgZZ0s}%cU}NGBoW_XKa63@,%%m*?D;-72",
        "im19JZtgZZ0s}%cU}NGBoW_XKa63@,%%m*?D;-72",
        "SALT_ROUNDS = 12\nsalt = bcrypt.gensalt()\nconst SALT_LENGTH = 16;",
    ),
    "subscript-settings": (
        "app.config['JWT_TOKEN_LOCATION'] = ['headers']\n"
        "$settings['hash_salt'] = file_get_contents('/home/site/salt.txt');\n"
        "app.config['SECRET_KEY'] = 'h9TXDPOSRdE13UvjssFcIkJSQW4uHU'",
        "h9TXDPOSRdE13UvjssFcIkJSQW4uHU",
        "app.config['JWT_TOKEN_LOCATION'] = ['headers']\n"
        "$settings['hash_salt'] = file_get_contents('/home/site/salt.txt');",
    ),
    # Header names without values, lists of allowed headers, placeholders and code.
    "headers-names-only": (
        "cors:\n  allowed_headers: [x-api-key, authorization, x-honeycomb-team]\n"
        "  expose_headers:\n    - x-request-id\n"
        "exporters:\n  otlp:\n    headers:\n      x-honeycomb-team: pKM1KdVWlTKskGf5j6qLt3\n",
        "pKM1KdVWlTKskGf5j6qLt3",
        "cors:\n  allowed_headers: [x-api-key, authorization, x-honeycomb-team]\n"
        "  expose_headers:\n    - x-request-id\n",
    ),
    "headers-placeholders": (
        "    headers:\n      x-honeycomb-team: ${env:HONEYCOMB_API_KEY}\n"
        '      "x-api-key": "${API_KEY}"\n      dd-api-key: <your-datadog-api-key>\n'
        "  otlp/2:\n    headers:\n      x-honeycomb-team: Tg88qw9HROsWJqNsAsMfTN\n",
        "Tg88qw9HROsWJqNsAsMfTN",
        "    headers:\n      x-honeycomb-team: ${env:HONEYCOMB_API_KEY}\n"
        '      "x-api-key": "${API_KEY}"\n      dd-api-key: <your-datadog-api-key>\n',
    ),
    "headers-in-code": (
        "const res = await fetch(url, { headers: { 'x-api-key': apiKey, "
        "'x-honeycomb-team': process.env.HONEYCOMB_KEY } });\n"
        "headers = {'x-api-key': 'oLIPtlitb8d6vvHCpqEFsU'}",
        "oLIPtlitb8d6vvHCpqEFsU",
        "headers: { 'x-api-key': apiKey, 'x-honeycomb-team': process.env.HONEYCOMB_KEY }",
    ),
    "headers-without-credentials": (
        "    headers:\n      x-honeycomb-dataset: tide-api\n      x-scope-orgid: tenant-7\n"
        "      content-type: application/json\n"
        "    headers:\n      x-api-key: noglozoboxjsmezu\n",
        "noglozoboxjsmezu",
        "    headers:\n      x-honeycomb-dataset: tide-api\n      x-scope-orgid: tenant-7\n"
        "      content-type: application/json\n",
    ),
    "header-named-in-prose": (
        "set the x-honeycomb-team header to your ingest key; "
        'curl -H "X-Honeycomb-Team: xfklkrvjvqrcgbtd" https://api.honeycomb.io/1/auth',
        "xfklkrvjvqrcgbtd",
        "set the x-honeycomb-team header to your ingest key;",
    ),
    "header-named-in-prose-spaced": (
        "the header x-honeycomb-team identifies your team and the header x-api-key holds "
        'the key; nginx: proxy_set_header X-Api-Key "njuerzarinddetpkom";',
        "njuerzarinddetpkom",
        "the header x-honeycomb-team identifies your team and the header x-api-key holds the key;",
    ),
    # Words, placeholders, variables and code names in a password or token slot stay.
    "password-words-and-placeholders": (
        "password: changeme\nsecret: mySecretName\npassword: ${DB_PASSWORD}\n"
        "db_pass: notsecure\npassword: eeuhzmxsaauqqdwl",
        "eeuhzmxsaauqqdwl",
        "password: changeme\nsecret: mySecretName\npassword: ${DB_PASSWORD}\ndb_pass: notsecure",
    ),
    "code-names-in-slots": (
        "password = getpass\ntoken = TokenType\nsecret = generateSecret\n"
        "auth_token = refreshToken\npassword = userInputPassword\npassword = BqxDpHVCFWAKOnHr",
        "BqxDpHVCFWAKOnHr",
        "password = getpass\ntoken = TokenType\nsecret = generateSecret\n"
        "auth_token = refreshToken\npassword = userInputPassword",
    ),
    "prose-password-words": (
        "the password is straightforward to reset, the token is configurable, and the "
        "password is incorrect; the real admin password is wcUrKJRUnOYVJDkT",
        "wcUrKJRUnOYVJDkT",
        "the password is straightforward to reset, the token is configurable, and the "
        "password is incorrect;",
    ),
    "weak-slot-words": (
        "api_key: required\ntoken: authentication\nauth: basic\ntoken_type: bearer\n"
        "token: ctemklfzigdzkkolwqpx",
        "ctemklfzigdzkkolwqpx",
        "api_key: required\ntoken: authentication\nauth: basic\ntoken_type: bearer",
    ),
    "pwd-command-and-code": (
        "cd /srv/quay && pwd\ncwd = pwd = os.getcwd()\nadmin_pw = get_pw()\npw: WrtpQxpyjRRtkF",
        "WrtpQxpyjRRtkF",
        "cd /srv/quay && pwd\ncwd = pwd = os.getcwd()\nadmin_pw = get_pw()",
    ),
    "header-call-with-variable": (
        'req.Header.Set("X-Api-Key", apiKey)\nsingle pass: Remove the stale rows\n'
        'xhr.setRequestHeader("X-Api-Key", "htxezcbvhprmbfbchl")',
        "htxezcbvhprmbfbchl",
        'req.Header.Set("X-Api-Key", apiKey)\nsingle pass: Remove the stale rows',
    ),
    # Pushover's other settings, names and prose stay.
    "pushover-settings": (
        "PUSHOVER_SOUND=cosmic\nPUSHOVER_PRIORITY=1\nPUSHOVER_DEVICE=ops-phone\n"
        "user key: the one on your dashboard\nPUSHOVER_APP=avxykmhdp7yv4afucanvsjhqpjcqwe",
        "avxykmhdp7yv4afucanvsjhqpjcqwe",
        "PUSHOVER_SOUND=cosmic\nPUSHOVER_PRIORITY=1\nPUSHOVER_DEVICE=ops-phone\n"
        "user key: the one on your dashboard",
    ),
    "user-names-elsewhere": (
        "ldap bind: user=harbourmasteropsnotifications1 group=opsteam\n"
        "user key: uxtnxolmv9h7kgzyo5drdhpv9nu3m7",
        "uxtnxolmv9h7kgzyo5drdhpv9nu3m7",
        "ldap bind: user=harbourmasteropsnotifications1 group=opsteam",
    ),
}


@pytest.mark.parametrize("name", sorted(LOOKALIKES))
def test_lookalike_is_kept(name: str) -> None:
    text, secret, kept = LOOKALIKES[name]
    assert_masked_keeping(text, secret, kept)


# --- Hostile input: each new pattern with repetition completes -------------------------------

HOSTILE: dict[str, Callable[[int], str]] = {
    "define-padding": lambda n: "define('AUTH_KEY'," + " " * 15 + "'" * n,
    "headers-colons": lambda n: "headers:\n" + "  x-api-key: a\n" * n,
    "headers-open-brace": lambda n: "headers: {" * n,
    "headers-list": lambda n: 'headers: [{"name": "x-api-key", ' * n,
    "headers-words": lambda n: "headers " * n,
    "curl-header": lambda n: '-H "x-api-key: ' * n,
    "pushover-names": lambda n: "user key: " * n,
    "pover-url": lambda n: "pover://" * n,
    "letters": lambda n: "password = " + "qzx" * n,
    "printable": lambda n: "define('NONCE_SALT', '" + "|&^%$#@!<>{}[]" * n + "')",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_completes(name: str) -> None:
    """Hostile repetitions of the new rules' words complete and mask idempotently; their time
    is measured by bench/bench_redact.py, not asserted here."""
    masked, _kinds = redact(HOSTILE[name](4_000))
    assert redact(masked) == (masked, ())
