"""What incremental consolidation remembers between passes (decision 0027): which memories it
compared, with which text, as hashes; answers as the dict of id -> text it replaced did."""

from __future__ import annotations

import random

from recallnest.lifecycle.settled import Settled


def test_a_memory_is_settled_with_the_text_it_was_compared_with() -> None:
    s = Settled()
    assert s.changed(["a", "b"], ["x", "y"]).tolist() == [True, True]
    s.update(["a", "b"], ["x", "y"])
    assert s.changed(["a", "b", "c"], ["x", "y2", "z"]).tolist() == [False, True, True]
    s.update(["b", "b"], ["old", "y2"])  # the last text given for an id wins
    assert s.changed(["b"], ["y2"]).tolist() == [False]
    assert len(s) == 2 and s.nbytes == 32


def test_discard_retain_and_clear_forget_ids() -> None:
    s = Settled()
    s.update(["a", "b", "c"], ["1", "2", "3"])
    s.discard(["b", "nope"])
    assert s.changed(["a", "b", "c"], ["1", "2", "3"]).tolist() == [False, True, False]
    s.retain(["c", "d"])
    assert s.changed(["a", "c"], ["1", "3"]).tolist() == [True, False]
    s.clear()
    assert len(s) == 0 and s.changed(["c"], ["3"]).tolist() == [True]


def test_it_agrees_with_a_dict_over_random_operations() -> None:
    rng = random.Random(5)
    model: dict[str, str] = {}
    s = Settled()
    ids = [f"m{k}" for k in range(60)]
    for _ in range(400):
        op = rng.choice(("update", "update", "discard", "retain", "merge"))
        some = rng.sample(ids, rng.randint(0, 12))
        if op == "update":
            texts = [rng.choice("xyz") for _ in some]
            s.update(some, texts)
            model.update(zip(some, texts, strict=True))
        elif op == "merge":  # a run's staged record, settled once its write is in
            staged = Settled()
            texts = [rng.choice("xyz") for _ in some]
            staged.update(some, texts)
            s.merge(staged)
            model.update(zip(some, texts, strict=True))
        elif op == "discard":
            s.discard(some)
            for i in some:
                model.pop(i, None)
        else:
            keep = rng.sample(ids, rng.randint(30, 60))
            s.retain(keep)
            model = {i: t for i, t in model.items() if i in keep}
        probe = rng.sample(ids, 20)
        texts = [rng.choice("xyz") for _ in probe]
        expected = [model.get(i) != t for i, t in zip(probe, texts, strict=True)]
        assert s.changed(probe, texts).tolist() == expected
        assert len(s) == len(model)
