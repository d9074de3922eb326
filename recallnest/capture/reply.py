"""Replies: a correction or an answer takes its subject from the turn it answers.

"no, the port is 9090 not 8080" names no port; the assistant's turn before it does ("I'll point
the scraper at port 8080 on the exporter"). `lacks_subject` says when a reply's statement leans
on the other turn for its subject, `answered_sentence` picks the sentence of that turn it
corrects or answers, and `with_subject` joins the two into one memory text. Pure, standard
library only.
"""

from __future__ import annotations

import re

from recallnest.capture.disowned import disowned_values, values_of
from recallnest.capture.rules import words
from recallnest.capture.salience import gate_turn, is_question

MAX_CONTEXT_CHARS = 160

# Bare openings lean on the other turn whole: a pronoun, a bare copula, a bare value.
_BARE = re.compile(
    r"^(?:it(?:'s| is| was| should be| needs to be)?\s|that(?:'s| is| was)\s|this is\s"
    r"|they(?:'re| are)\s|(?:on|at|in|to|from)\s+\S*\d|\S*\d\S*(?:\s|$)|use\s)"
    r"|^(?:应该|其实|实际上|明明)?(?:是|在|用|为|要|改成|换成|得)|^[\d一二三四五六七八九十两]",
    re.IGNORECASE,
)
# Generic openings name a kind of thing but not which one: "the port is", 端口是.
_GENERIC = re.compile(
    r"^(?:the|a|an)\s+[a-z]+\s+(?:is|are|was|were|should be|needs to be|has to be|must be|lives"
    r"|runs|sits|goes)\b|^(?!不|没|别)[\u4e00-\u9fff]{1,2}(?:是|在|为)",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][\w.:/+-]*[\w]|\d[\w.:/+-]*|[\u4e00-\u9fff]{2}")
_STOP = words(
    "the a an is are was were it its it's that this not no to of in on at for and or be should",
    "use used with from",
)
_VALUE = re.compile(r"\d|[A-Za-z]+[-_.][A-Za-z0-9]")


def lacks_subject(body: str) -> bool:
    """True when `body` only makes sense with the turn it replies to."""
    text = body.strip()
    return bool(_BARE.match(text) or _GENERIC.match(text))


def answered_sentence(previous: str, body: str) -> str | None:
    """The sentence of `previous` that `body` corrects or answers, or None.

    A bare reply ("是 443", "it's us-west-2") answers the sentence holding a value when no
    sentence shares a word with it; a generic one ("the port is 9090") needs a shared word.
    """
    gate = gate_turn(previous)
    if gate.reason is not None or not gate.sentences:
        return None
    sentences = [s for s in gate.sentences if len(s) <= 2 * MAX_CONTEXT_CHARS]
    if not sentences:
        return None
    words = _words(body)
    ranked = sorted(
        range(len(sentences)),
        key=lambda i: (-len(words & _words(sentences[i])), -_has_value(sentences[i]), i),
    )
    best = sentences[ranked[0]]
    bare = _BARE.match(body.strip()) is not None
    if not words & _words(best) and not (bare and _has_value(best)):
        return None
    return best[:MAX_CONTEXT_CHARS].rstrip()


def with_subject(body: str, answered: str, question: bool = False) -> str:
    """One memory text: the reply's statement and the sentence it answers."""
    text = body.strip()
    if re.search(r"[\u4e00-\u9fff]", text):
        label = "回答" if question else "更正"
        return f"{text.rstrip('。.')}（{label}：{answered}）"
    label = "answering" if question else "correcting"
    return f"{text.rstrip('.')} ({label}: {answered})"


# The tail `with_subject` gives a correction: "… (correcting: <the sentence it corrects>)".
_CORRECTED_TAIL = re.compile(r"\s*(?:\(correcting: (.+)\)|（更正：(.+)）)$")


def without_corrected_value(text: str) -> str:
    """`text` without its "(correcting: …)" tail when the tail holds a number the correction
    does not: the sentence it corrects says the old value ("… we do 7 working days. use 7
    (correcting: Reports now show an expected date 10 working days after intake…)",
    e2e-heldout23 h23x01), and shown again that value reads as a fact. Kept when the
    correction alone would not say what it is about ("no, 443 (correcting: …port is 8443)")."""
    tail = _CORRECTED_TAIL.search(text)
    if tail is None:
        return text
    body, corrected = text[: tail.start()], tail.group(1) or tail.group(2)
    standing = values_of(body) - disowned_values(body)
    if not values_of(corrected) - standing:
        return text
    return body if len(_words(body)) >= _OWN_WORDS else text


_OWN_WORDS = 5  # words of its own a correction needs to stand without what it corrects


def wh_question(previous: str) -> str | None:
    """The last sentence of `previous` when it asks for a value (which / where / 多少 …)."""
    gate = gate_turn(previous)
    sentences = gate.sentences if gate.reason in (None, "question") else ()
    if not sentences:
        sentences = tuple(s for s in re.split(r"(?<=[?？])\s*", previous.strip()) if s)
    last = sentences[-1] if sentences else ""
    if not is_question(last) or not _WH.search(last):
        return None
    return last[:MAX_CONTEXT_CHARS].rstrip()


_WH = re.compile(
    r"^(?:what|which|where|when|how (?:many|much|long|often|big)|who)\b|(?:哪个|哪里|哪儿|哪台|哪一"
    r"|多少|多久|多长|什么|几点|几个|几天)",
    re.IGNORECASE,
)


_SHORT_ANSWER_WORDS = 6  # "24 hours ahead", "port 9100": a value and a word of the question
_SHORT_ANSWER_CHARS = 12  # 提前 12 小时


def echoes(body: str, question: str) -> bool:
    """True when `body` is a short answer that takes a word of `question` for its value's
    subject ("提前 12 小时" to "提前多久取消…？", "port 9100" to "which port …?")."""
    text = body.strip().rstrip("。.!！")
    short = (
        len(text) <= _SHORT_ANSWER_CHARS
        if re.search(r"[\u4e00-\u9fff]", text)
        else len(text.split()) <= _SHORT_ANSWER_WORDS
    )
    return short and bool(_keys(text) & _keys(question))


def _keys(text: str) -> set[str]:
    # Every two characters in a row of Chinese, wherever the word starts ("提前" in "要提前多久").
    han = "".join(ch if "\u4e00" <= ch <= "\u9fff" else " " for ch in text)
    pairs = {run[i : i + 2] for run in han.split() for i in range(len(run) - 1)}
    return (_words(text) - {w for w in _words(text) if re.match(r"[\u4e00-\u9fff]", w)}) | pairs


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)} - _STOP


def _has_value(text: str) -> int:
    return 1 if _VALUE.search(text) else 0


RESTATEMENT_SHARE = 0.5


def restates(body: str, previous: str) -> bool:
    """`body` (an assistant's confirmation) mostly repeats words of `previous` (the user's turn).

    Plural "s" is folded ("releases" repeats "release"), so a paraphrase that keeps the user's
    nouns counts as a restatement.
    """
    said = {_singular(w) for w in _words(previous)}
    mine = [_singular(w) for w in _words(body)]
    if not mine:
        return False
    return sum(1 for w in mine if w in said) / len(mine) >= RESTATEMENT_SHARE


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and word.isascii() else word
