"""Entity knowledge shared by capture, admission and retrieval: the canonical form of a memory's
text (what its id is computed from), the alias table for common tech entities, query-time alias
expansion, and the subject vocabulary that tells two preferences apart ("package-manager:js").

Owns: `canonical()`, `AliasTable`, `build_alias_table()`, `expand_query_aliases()`,
`find_subject()`, `subject_value()`. Must not read files or the environment: a user alias file is
parsed by the caller and handed in as a plain mapping. Standard library only.

User alias mapping (parsed TOML or JSON; an optional top-level "aliases" table is unwrapped):

    {"aliases": {"kubernetes": ["kube", "k8"], "shop-api": "shop backend"}}

Keys are canonical names, values are one variant or a list of variants. A user variant that is
already a built-in variant of another name moves to the user's name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from recallnest.core import heap
from recallnest.core.errors import ConfigError

MAX_QUERY_VARIANTS = 12

# Canonical name -> variants (casefolded). Kept to terms that are unambiguous in coding talk:
# "go" and "node" are ordinary words, so only their unambiguous spellings are listed.
BUILTIN_ALIASES: dict[str, tuple[str, ...]] = {
    "typescript": ("ts",),
    "javascript": ("js", "ecmascript"),
    "kubernetes": ("k8s", "kube"),
    "postgresql": ("postgres", "pg", "psql"),
    "python": ("py", "python3"),
    "database": ("db", "数据库"),
    "mongodb": ("mongo",),
    "terraform": ("tf",),
    "github": ("gh",),
    "github actions": ("gha",),
    "gitlab": (),
    "node.js": ("nodejs", "node js"),
    "go": ("golang",),
    "vs code": ("vscode", "visual studio code"),
    "neovim": ("nvim",),
    "docker compose": ("docker-compose",),
    "c++": ("cpp",),
    "c#": ("csharp",),
    "react": ("reactjs", "react.js"),
    "vue": ("vuejs", "vue.js"),
    "next.js": ("nextjs",),
    "tailwind css": ("tailwind", "tailwindcss"),
    "sqlite": ("sqlite3",),
    "google cloud": ("gcp",),
    "aws": ("amazon web services",),
    "macos": ("osx", "os x", "mac os"),
    "repository": ("repo", "仓库", "代码仓库"),
    "frontend": ("front-end", "前端"),
    "backend": ("back-end", "后端"),
    "elasticsearch": ("elastic search",),
    "rabbitmq": ("rabbit mq",),
    "redis": (),
    "duckdb": (),
    "pnpm": (),
    "npm": (),
}

# Words that name a subject without answering it ("缩进" = indentation): they select the subject
# but are never its value.
SUBJECT_HINTS: dict[str, tuple[str, ...]] = {
    "indent": ("indentation", "缩进"),
    "quote-style": ("quotes", "引号"),
    "package-manager:python": ("python dependencies", "python deps"),
}

# Subject key -> the canonical tool names that answer it. Two preferences about the same
# subject with different values supersede each other ("use npm" -> "never npm, use pnpm").
SUBJECT_TERMS: dict[str, tuple[str, ...]] = {
    "package-manager:python": ("uv", "pip", "poetry", "pipenv", "conda", "pdm", "rye", "hatch"),
    "package-manager:js": ("pnpm", "npm", "yarn", "bun"),
    "editor": (
        "vs code",
        "neovim",
        "vim",
        "emacs",
        "cursor",
        "zed",
        "sublime",
        "helix",
        "jetbrains",
        "pycharm",
        "intellij",
        "goland",
        "webstorm",
    ),
    "test-runner:python": ("pytest", "unittest", "nose"),
    "test-runner:js": ("vitest", "jest", "mocha", "jasmine", "ava"),
    "formatter": ("ruff format", "black", "yapf", "autopep8", "prettier", "gofmt"),
    "linter": ("eslint", "ruff", "flake8", "pylint", "golangci-lint"),
    "type-checker": ("mypy", "pyright", "pyre"),
    "shell": ("zsh", "bash", "fish", "powershell", "nushell"),
    "os": ("macos", "linux", "windows", "wsl", "wsl2", "ubuntu"),
    "indent": (
        "tabs",
        "tab",
        "spaces",
        "2 spaces",
        "4 spaces",
        "4-space",
        "2-space",
        "两个空格",
        "四个空格",
    ),
    "quote-style": ("single quotes", "double quotes", "单引号", "双引号"),
    "merge-strategy": ("squash", "rebase", "merge commit"),
    "reply-language": ("english", "chinese", "中文", "英文"),
}

_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_LEAD = re.compile(r"\w*")
_WORDS = re.compile(r"\w+")
_TRAILING_PUNCT = ".,;:!?。！？；：，、…~～ \t\n"
_SPACES = re.compile(r"\s+")
_NEGATORS = re.compile(
    r"(?:\b(?:not|never|no|don't|do not|instead of|rather than|stop using|avoid)\b"
    r"|不要|别|不用|不是|不再|从来不|而不是|禁止)\W*(?:\w+\W+){0,1}$"
)


@dataclass(frozen=True, slots=True)
class AliasTable:
    """Surface form (casefolded) -> canonical name, with one compiled matcher over all forms."""

    variants: Mapping[str, str]
    pattern: re.Pattern[str] | None
    # Where a match can begin (see _match_starts); None: try the pattern at every position.
    leads: frozenset[str] | None = None
    scripts: tuple[str, ...] = ()

    def groups(self) -> dict[str, list[str]]:
        """Canonical name -> every surface form of it, canonical name first."""
        out: dict[str, list[str]] = {}
        for form, name in self.variants.items():
            out.setdefault(name, [name])
            if form != name:
                out[name].append(form)
        return out


def normalize_width(text: str) -> str:
    """Fold full-width ASCII (Ａ１！) and the ideographic space to their ASCII forms."""
    return text.translate(_FULLWIDTH)


def build_alias_table(user: Mapping[str, object] | None = None) -> AliasTable:
    """Alias table of the built-ins plus a parsed user mapping (see module docstring)."""
    variants: dict[str, str] = {}
    for name, forms in BUILTIN_ALIASES.items():
        _add_group(variants, name, forms)
    for name, forms in _user_groups(user or {}).items():
        _add_group(variants, name, forms)
    ascii_forms = [f for f in variants if f.isascii()]
    return AliasTable(
        variants=variants,
        pattern=_compile(variants),
        leads=frozenset(_LEAD.match(f).group(0) for f in ascii_forms),  # type: ignore[union-attr]
        scripts=tuple(f for f in variants if not f.isascii()),
    )


def canonical(text: str, aliases: AliasTable | None = None) -> str:
    """Canonical form used for memory ids and subjects.

    Folds full-width ASCII, casefolds, collapses whitespace, strips trailing punctuation (incl.
    。！？) and rewrites entity mentions to their canonical names (`aliases` defaults to the
    built-in table).
    """
    table = aliases if aliases is not None else DEFAULT_ALIASES
    key = (id(table), text)
    done = _CANONICAL_CACHE.get(key)
    if done is not None:
        return done
    folded = _SPACES.sub(" ", normalize_width(text).casefold()).strip()
    done = _replace_mentions(folded, table).rstrip(_TRAILING_PUNCT).strip()
    if len(_CANONICAL_CACHE) >= _CANONICAL_CACHE_SIZE:
        _CANONICAL_CACHE.clear()
        _CACHED_TABLES.clear()
    _CACHED_TABLES[id(table)] = table  # keeps the table alive, so its id cannot be reused
    _CANONICAL_CACHE[key] = done
    return done


# Admission compares each new capture with every pending memory of its scope, so one backfill
# flush asked for the same texts' canonical form ~80k times (bench_ingest --backfill --profile:
# a third of the CPU). Pure function of (table, text): a bounded memo.
_CANONICAL_CACHE_SIZE = 65_536
_CANONICAL_CACHE: dict[tuple[int, str], str] = {}
_CACHED_TABLES: dict[int, AliasTable] = {}


@heap.droppable
def _drop_canonical_cache() -> None:
    _CANONICAL_CACHE.clear()
    _CACHED_TABLES.clear()


def expand_query_aliases(text: str, aliases: AliasTable | None = None) -> list[str]:
    """The query itself, then one variant per other surface form of each entity it mentions.

    "deploy to k8s" -> ["deploy to k8s", "deploy to kubernetes", "deploy to kube"]. Capped at
    MAX_QUERY_VARIANTS; deterministic order (mention order, then canonical name, then variants).
    """
    table = aliases if aliases is not None else DEFAULT_ALIASES
    query = normalize_width(text)
    out = [query]
    groups = table.groups()
    for name in _mentioned_names(query, table):
        for form in groups[name]:
            variant = _replace_group(query, table, name, form)
            if variant not in out:
                out.append(variant)
    return out[:MAX_QUERY_VARIANTS]


def find_subject(canonical_text: str) -> str | None:
    """The first known subject whose vocabulary appears in an already-canonical text."""
    for subject, terms in SUBJECT_TERMS.items():
        hints = SUBJECT_HINTS.get(subject, ())
        if any(_TERM_PATTERNS[term].search(canonical_text) for term in (*terms, *hints)):
            return subject
    return None


def subject_value(canonical_text: str, subject: str) -> str | None:
    """The term of `subject` the text speaks for: the first mention not under a negation.

    "never npm, use pnpm" -> "pnpm"; "use npm" -> "npm"; None when every mention is negated.
    """
    mentions: list[tuple[int, str]] = []
    for term in SUBJECT_TERMS.get(subject, ()):
        mentions.extend((m.start(), term) for m in _TERM_PATTERNS[term].finditer(canonical_text))
    for start, term in sorted(mentions):
        if not _NEGATORS.search(canonical_text[:start]):
            return term
    return None


# --------------------------------------------------------------------------- internals


def _add_group(variants: dict[str, str], name: str, forms: tuple[str, ...]) -> None:
    key = _SPACES.sub(" ", normalize_width(name).casefold()).strip()
    variants[key] = key
    for form in forms:
        variants[_SPACES.sub(" ", normalize_width(form).casefold()).strip()] = key


def _user_groups(user: Mapping[str, object]) -> dict[str, tuple[str, ...]]:
    body = user.get("aliases", user)
    if not isinstance(body, Mapping):
        raise ConfigError("alias mapping: 'aliases' must be a table of name -> variants")
    groups: dict[str, tuple[str, ...]] = {}
    for name, forms in body.items():
        groups[str(name)] = _user_forms(str(name), forms)
    return groups


def _user_forms(name: str, forms: object) -> tuple[str, ...]:
    if isinstance(forms, str):
        return (forms,)
    if isinstance(forms, list | tuple) and all(isinstance(f, str) for f in forms):
        return tuple(forms)
    raise ConfigError(f"alias mapping: variants of {name!r} must be a string or list of strings")


def _compile(variants: Mapping[str, str]) -> re.Pattern[str] | None:
    if not variants:
        return None
    alternation = "|".join(_form_regex(f) for f in sorted(variants, key=lambda f: (-len(f), f)))
    return re.compile(alternation, re.IGNORECASE)


def _form_regex(form: str) -> str:
    body = re.escape(form).replace(r"\ ", r"\s+")
    if not form.isascii():
        return body
    # Trigger: an ASCII alias inside a longer identifier, path or file name ("setup.py", "ts-node").
    # Why: rewriting those would corrupt the fact. Outcome: ASCII forms match whole words only.
    return rf"(?<![\w.\-/@]){body}(?![\w\-]|\.\w)"


def _replace_mentions(text: str, table: AliasTable) -> str:
    if table.pattern is None:
        return text
    starts = _match_starts(text, table)
    if starts is None:
        return table.pattern.sub(lambda m: table.variants[_key(m.group(0))], text)
    # The same scan as pattern.sub (leftmost match first, then on from its end), tried only
    # where a match can begin: the pattern alone tests every position (~200 µs a memory).
    out: list[str] = []
    end = 0
    for start in starts:
        if start < end:
            continue
        found = table.pattern.match(text, start)
        if found is not None:
            out += (text[end:start], table.variants[_key(found.group(0))])
            end = found.end()
    return "".join(out) + text[end:] if out else text


def _match_starts(folded: str, table: AliasTable) -> list[int] | None:
    """Every position where the pattern can match the casefolded, space-collapsed `folded`,
    in order; None when unknown (run the pattern everywhere).

    An ASCII form matches only at the start of a word (its lookbehind), and its leading word
    characters are then the whole word there (a non-word character or its lookahead follows),
    so the word must be a form's leading word. A non-ASCII form can match wherever it occurs.
    IGNORECASE also matches ASCII letters to the dotless "ı", which casefold keeps."""
    if table.leads is None or "ı" in folded:
        return None
    starts = [w.start() for w in _WORDS.finditer(folded) if w.group(0) in table.leads]
    for form in table.scripts:
        at = folded.find(form)
        while at >= 0:
            starts.append(at)
            at = folded.find(form, at + 1)
    return sorted(set(starts)) if table.scripts else starts


def _replace_group(text: str, table: AliasTable, name: str, form: str) -> str:
    assert table.pattern is not None  # only called for names found by the pattern
    return table.pattern.sub(
        lambda m: form if table.variants[_key(m.group(0))] == name else m.group(0), text
    )


def _mentioned_names(text: str, table: AliasTable) -> list[str]:
    if table.pattern is None:
        return []
    names: list[str] = []
    for match in table.pattern.finditer(text):
        name = table.variants[_key(match.group(0))]
        if name not in names:
            names.append(name)
    return names


def _key(surface: str) -> str:
    return _SPACES.sub(" ", surface.casefold())


def _term_pattern(term: str) -> re.Pattern[str]:
    if not term.isascii():
        return re.compile(re.escape(term))
    return re.compile(rf"(?<![\w\-]){re.escape(term)}(?![\w\-])")


DEFAULT_ALIASES = build_alias_table()
_TERM_PATTERNS = {
    t: _term_pattern(t)
    for table in (SUBJECT_TERMS, SUBJECT_HINTS)
    for terms in table.values()
    for t in terms
}
