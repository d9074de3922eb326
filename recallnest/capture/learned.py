"""A learned second opinion for turns the capture rules say nothing about.

The rules (`heuristics`, `rules`) are precise but only know the phrasings someone wrote a rule
for: every fresh blind batch of the capture set found about half of its memories in new words
("solo indie dev here, shipping on Godot 4", "loss 变 NaN 的原因找到了：… 改成 bf16 以后就稳了").
This module is a linear model over hashed words, word pairs and CJK character n-grams, trained
on the capture set (`recallnest.evaluation.train_capture`; the newest blind batches stay held
out), that names the category of a turn or "none". `capture_turn` asks it only when the
gate kept the turn's prose and no rule fired, and keeps its answer only above `THRESHOLD`
(decision 0028 has the sweep that chose it). It also names the category of what the catch-all
fact rule kept, the one rule that fires on any sentence with a concrete token and a fact verb
(decision 0034).

No LLM and no embedder: a dictionary of weights shipped in the package (`data/`), read once.
Pure otherwise and standard library only, like the rest of capture.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

CLASSES = ("none", "preferences", "profile", "events", "cases", "entities", "patterns")
DIM = 1 << 18
MODEL_FILE = "capture_model.json.gz"
# Chosen by 5-fold cross-validation over the training rows (decision 0028): the probability at
# which right captures minus wrong ones, on turns no rule captures, is highest.
THRESHOLD = 0.7
# For re-reading what the catch-all fact rule kept (`heuristics._second_opinion`): the sentence
# is already known to state something, so only its category is in question. Chosen by the same
# 5-fold cross-validation (decision 0034): 0.5 gained 7 right categories and lost none; 0.6-0.8
# gained 2-3.
RELABEL_THRESHOLD = 0.5

_TOKEN = re.compile(r"[a-z0-9_'./-]+|[\u3400-\u9fff]+")
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True, slots=True)
class Model:
    """Weights per feature hash (one per class), and the class biases."""

    weights: dict[int, tuple[float, ...]]
    bias: tuple[float, ...]


def features(text: str, role: str) -> frozenset[int]:
    """Hashed features of a text said by `role`: Latin words and word pairs, CJK character
    unigrams to trigrams, and the speaker."""
    words = _TOKEN.findall(text.casefold())
    out: list[str] = [f"role:{role}"]
    latin: list[str] = []
    for word in words:
        if _CJK.match(word):
            out += [f"c{word[i : i + n]}" for n in (1, 2, 3) for i in range(len(word) - n + 1)]
        else:
            out.append(f"w{word}")
            latin.append(word)
    out += [f"b{a} {b}" for a, b in itertools.pairwise(latin)]
    return frozenset(zlib.crc32(f.encode()) % DIM for f in out)


def probabilities(model: Model, feats: frozenset[int]) -> tuple[float, ...]:
    """Softmax over the classes for a feature set."""
    scores = list(model.bias)
    for f in feats:
        row = model.weights.get(f)
        if row is not None:
            scores = [s + w for s, w in zip(scores, row, strict=True)]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return tuple(e / total for e in exps)


def predict(text: str, role: str, model: Model | None = None) -> tuple[str, float]:
    """The most likely class of `text` and its probability."""
    probs = probabilities(model or shipped_model(), features(text, role))
    best = max(range(len(CLASSES)), key=probs.__getitem__)
    return CLASSES[best], probs[best]


@lru_cache(maxsize=1)
def shipped_model() -> Model:
    """The model trained by `recallnest.evaluation.train_capture`, from the package data."""
    raw = resources.files("recallnest.capture").joinpath("data", MODEL_FILE).read_bytes()
    return loads(gzip.decompress(raw))


def loads(raw: bytes) -> Model:
    doc = json.loads(raw)
    if tuple(doc["classes"]) != CLASSES or doc["dim"] != DIM:
        raise ValueError("capture model: classes or feature space differ from this code")
    weights = {int(k): tuple(v) for k, v in doc["weights"].items()}
    return Model(weights=weights, bias=tuple(doc["bias"]))


def dumps(model: Model) -> bytes:
    """Deterministic JSON of a model (sorted keys), gzip-compressed with no timestamp."""
    doc = {
        "classes": list(CLASSES),
        "dim": DIM,
        "bias": list(model.bias),
        "weights": {str(k): list(v) for k, v in sorted(model.weights.items())},
    }
    text = json.dumps(doc, separators=(",", ":")).encode()
    return gzip.compress(text, compresslevel=9, mtime=0)
