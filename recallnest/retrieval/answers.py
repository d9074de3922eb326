"""The kind of answer a prompt asks for, and whether a note can hold one (round 51).

A note that names the prompt's subject but cannot say what is asked about it is no answer:
"what pressure should the trailer tyres be at" against a delivery routine that names the
trailer and the tow hitch and holds no figure (test-blind21). The question's head says what
kind of thing is wanted; each kind below has a form that a note holding it must show:

- amount: how much (does it cost, do we charge, is owed), what's the price or fee, 多少钱,
  收费多少. Held by a figure, or free / no charge / 免费.
- measure: what pressure, temperature, speed or weight; how heavy, tall, wide or deep; 多重,
  多高. Held by a figure.
- time: when (does, is, should …), what time, what day, 几点, 哪天, 什么时候. Held by a
  figure, a weekday, a month, a part of the day, every / daily / weekly, 早上, 周一 ….
- duration: how long (does, should, will …), 多久, 多长时间. Held by a figure, a number word
  or a word of duration (overnight, a week, 半天 …).
- count: how many, 有几个, 多少个 / 人 / 次. Held by a figure or a number word.

Asked kinds whose answer has no form to test (where, which command, why, who: a place, a
command, a reason or a person can be said in any words) are not read. Nothing here is tuned to
a row: the forms are the kinds' own.

Pure; standard library only; no I/O.
"""

from __future__ import annotations

import re

__all__ = ["asked_kind", "holds"]

_EN = re.IGNORECASE
_ASKED: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "duration",
        re.compile(
            r"\bhow long (?:do|does|did|should|will|would|can|is|are|was|were|has|have|"
            r"before|until|till|to|it|they|we|i|you)\b|多久|多长时间|多長時間|要几天|几天能",
            _EN,
        ),
    ),
    (
        "count",
        # (几个 after 有 / 要 / 需要 …, or before a question mark: "那几个书画柜" names some)
        re.compile(
            r"\bhow many\b|(?:有|要|需要|是|用|留|配|派)几个|几个[？?]"
            r"|多少个|多少人|多少次|多少台|多少张|多少位",
            _EN,
        ),
    ),
    (
        "amount",
        re.compile(
            r"\bhow much (?:do|does|did|should|will|would|is|are|was|to|for|we|they|it)\b"
            r"[^?.!\n]{0,60}?\b(?:cost|charge|pay|owe|price|fee|spend|quote|bill|refund|"
            r"deposit)|\bhow much (?:is|was|are|does|do) (?:it|that|this|the)\b"
            r"|\bwhat (?:does|do|did|will|would) [^?.!\n]{0,40}?\b(?:cost|charge|owe)\b"
            r"|\bwhat(?:'s| is| are| was)? the (?:price|cost|fee|charge)s?\b"
            r"|多少钱|几块钱|收费多少|收多少|价格是多少|费用是多少|要付多少|该付多少",
            _EN,
        ),
    ),
    (
        "measure",
        re.compile(
            r"\bwhat (?:pressure|temperature|temp|speed|weight|height|width|depth|voltage|"
            r"torque|psi|size)\b|\bhow (?:heavy|tall|high|wide|deep|hot|cold|fast|big)\b"
            r"|多重|多高|多宽|多深|多大压力|多少度|多少公斤|多少斤",
            _EN,
        ),
    ),
    (
        "time",
        re.compile(
            r"(?:^|[.!?,;]\s*)when (?:do|does|did|is|are|was|were|should|will|would|can|"
            r"could|must)\b|\bwhat time\b|\bwhat day\b|\bwhich day\b|\bwhat date\b"
            r"|几点|哪天|哪一天|什么时候|几号|哪个月",
            _EN,
        ),
    ),
)

_FIGURE = re.compile(r"\d|[£$€¥]")
_NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|dozen|a couple|single|double|twice|once)\b"
    r"|[一二两三四五六七八九十百千万半]",
    _EN,
)
_FREE = re.compile(r"\bfree\b|\bno charge\b|\bwaived?\b|免费|不收|不要钱", _EN)
_TIME_WORDS = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:january|february|march|april|"
    r"may|june|july|august|september|october|november|december)\b|\b(?:morning|afternoon|"
    r"evening|night|noon|midnight|dawn|dusk|weekend|weekday|daily|weekly|monthly|nightly|"
    r"yearly|annually|every|each|tomorrow|tonight|today|before|after|until|by the end)\b"
    r"|[早晚午夜]|周[一二三四五六日末]|星期|礼拜|每[天日周月年]|月底|月初|之前|之后|以前|以后",
    _EN,
)
_DURATION_WORDS = re.compile(
    r"\b(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|fortnight|months?|years?|"
    r"overnight|all day|a while|forever)\b|秒|分钟|小时|钟头|[天周月年]|半天|一晚|通宵",
    _EN,
)


# A second question after the first: "what's the fee and who is exempt?" asks for two kinds.
_ANOTHER = re.compile(
    r"\b(?:and|or|also)\s+(?:who|what|where|which|why|how|when|whether|if)\b|还有|另外|以及",
    _EN,
)
_QUESTION_MARKS = ("?", "？")


def asked_kind(query: str) -> str | None:
    """The kind of answer `query` asks for ("amount", "measure", "time", "duration",
    "count"), or None when it asks for none of them, for another kind, or for more than one
    thing (two question marks, `_ANOTHER`: a note may answer the other)."""
    for kind, pattern in _ASKED:
        m = pattern.search(query)
        if m is not None:
            questions = sum(query.count(mark) for mark in _QUESTION_MARKS)
            return None if questions > 1 or _ANOTHER.search(query, m.start()) else kind
    return None


def holds(kind: str, text: str) -> bool:
    """Whether `text` has the form an answer of `kind` takes (see the module docstring)."""
    if _FIGURE.search(text):
        return True
    if kind == "amount":
        return _FREE.search(text) is not None or _NUMBER_WORDS.search(text) is not None
    if kind == "count":
        return _NUMBER_WORDS.search(text) is not None
    if kind == "time":
        return _TIME_WORDS.search(text) is not None
    if kind == "duration":
        return _DURATION_WORDS.search(text) is not None or _NUMBER_WORDS.search(text) is not None
    return False  # a measure is a figure
