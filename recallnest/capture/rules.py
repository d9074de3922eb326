"""Named capture rules and the vocabulary they share: the data half of auto-capture.

Owns the rule tables (`PATTERN_RULES`, `DECISION_RULES`, `PROFILE_RULES`, `PREFERENCE_RULES`),
each a `name -> regex` map whose family (the part of the name before the first dot) fixes the
category, importance, confidence and who may fire it, plus the regexes the special rules and
filters use (remember, correction, solved case, concrete tokens, narration, transient markers).
Holds no logic beyond compiling; `capture` applies these. Standard library only. Searched
patterns carry a `literal_gate` (literals every match needs), so most sentences are ruled out by
a substring test instead of a case-insensitive search at every offset.

Who may say what: profile, preferences and workflows (patterns) only come from the user;
decisions may come from either side (assistant at lower confidence, set in `capture`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recallnest.capture.literal_gate import Gated

_I = re.IGNORECASE
USER: tuple[str, ...] = ("user",)
BOTH: tuple[str, ...] = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class Rule:
    """A named trigger for one category; `roles` lists who may fire it."""

    name: str
    category: str
    pattern: re.Pattern[str]
    importance: float
    confidence: float
    roles: tuple[str, ...] = USER


# family -> (category, importance, confidence, roles)
FAMILIES: dict[str, tuple[str, float, float, tuple[str, ...]]] = {
    "pattern": ("patterns", 0.7, 0.8, USER),
    "decision": ("events", 0.6, 0.85, BOTH),
    "profile": ("profile", 0.8, 0.85, USER),
    "preference": ("preferences", 0.7, 0.85, USER),
}


def _table(rules: dict[str, str]) -> tuple[Rule, ...]:
    out: list[Rule] = []
    for name, regex in rules.items():
        category, importance, confidence, roles = FAMILIES[name.split(".", 1)[0]]
        out.append(Rule(name, category, re.compile(regex, _I), importance, confidence, roles))
    return tuple(out)


# --------------------------------------------------------------------------- shared vocabulary

# Tools people name in lower case ("we use ruff here"): as much a name as a capitalised one.
# English words that are also tools ("black", "make", "just") are left out.
_TOOL = (
    r"(?<![\w.-])(?:ruff|uv|pnpm|npm|yarn|bun|pytest|vitest|jest|mypy|pyright|eslint|prettier"
    r"|biome|isort|flake8|pylint|poetry|pipenv|conda|pdm|hatch|tox|nox|docker|podman|kubectl"
    r"|helm|kustomize|terraform|ansible|nginx|caddy|redis|postgres|mysql|sqlite|duckdb|kafka"
    r"|celery|dramatiq|sidekiq|webpack|vite|esbuild|rollup|turborepo|nx|cargo|rustup|gradle"
    r"|maven|bazel|cmake|ninja|direnv|pre-commit|husky|lefthook|renovate|dependabot|sentry"
    r"|grafana|prometheus|loki|gofmt|golangci-lint|pip|pipx|nvm|fnm|asdf|mise|tmux|zsh|fish"
    r"|neovim|nvim|vim|emacs|deno|node|alembic|prisma|drizzle|sqlalchemy|pydantic|fastapi"
    r"|django|flask|rails|uvicorn|gunicorn|storybook|playwright|cypress|selenium)(?![\w-])"
)
TOOL_NAME = re.compile(_TOOL, _I)


DEICTIC_EN = (
    r"(?:this|that|it(?!\s+(?:when|if)\b)|these|those|whatever|whichever|either(?: one)?"
    r"|the first one|the second one|how|what)\b"
)

DEICTIC_ZH = r"(?:这个|那个|这样|那样|这种方式|它|这些|那些|这么)"

# Coding-style topics: a directive about one of these is a standing preference, even without
# "always"/"prefer" ("single quotes in python please", "文件名用 snake_case").
STYLE_TOPIC = (
    r"(?:single|double) quotes|quotes|snake_case|camelcase|kebab-case|pascalcase|naming|spelling"
    r"|indentation|tabs|semicolons|trailing (?:whitespace|commas?)|line length|comments"
    r"|docstrings|type hints|annotations|print(?: statements| debugging)?|emoji"
    r"|commit (?:messages|msgs?)"
    r"|imports|abstractions|duplication|inheritance|composition|mocks|f-strings|early returns"
    r"|file names|summar(?:y|ies)|recaps?"
    # letter case: "write SQL keywords in uppercase", 常量一律大写 (b27)
    r"|upper ?case|lower ?case|casing|capitali[sz]ation|大写|小写"
    r"|单引号|双引号|命名|缩进|注释|拼写|分号|文案|提交信息|导入|抽象|继承|组合"
    r"|类型注解|文件名|变量名"
)

STYLE_DIRECTIVE = (
    r"\bplease\b|\bpls\b|^(?:use|no|avoid|prefer|keep)\b|\bover\b|\bfor (?:file names|urls"
    r"|new \w+|\w+ code|tests|prs|commits)\b|\bin (?:python|js|javascript|ts|typescript|go|rust"
    r"|java|tests|prs|commits|(?:user-facing )?copy)\b|请|(?:里|中)(?:用|不要|别|统一)"
    r"|[，,]\s*\S{1,4}(?:用|统一|一律)\s*\S|^\S+ not \S+|\beverywhere(?: else)?\b"
    r"|^(?:[\w-]+\s+){1,2}use\s"
    r"|^[^，。,]{0,12}?用\s*\S"
    # a style given as its topic, a colon and the spec: "commit msgs: imperative + lowercase",
    # 注释：英文，一句话 (round 50, b45 en-38); only for what the agent writes in code, as a
    # colon after "comments" or "imports" may open a fact of the product
    r"|^(?:(?:git|our|my)\s+)?(?:commit (?:messages|msgs?)|docstrings|naming|file ?names"
    r"|variable names|branch names|indentation|casing|type hints|提交信息|注释|命名|文件名|变量名"
    r"|缩进)\s*[:：]\s*\S"
)

# About the task at hand, not future sessions ("for now", 先别, "again").
TRANSIENT = Gated(
    re.compile(
        r"\b(?:yet|for now|right now|for the moment|this time|today|at the moment|temporarily"
        r"|for this (?:pr|task|change|one|run|test|file)|once more|come back to"
        # "…and never again" (b34) stresses the rule; "works/matches again" reports a fix
        r"|(?<!\bnever )(?<!\bworks )(?<!\bmatches )(?<!\bworking )again"
        # parking an idea, not parkrun, Parker or a parking lot (e2e-heldout13)
        r"|park(?:ing|ed)?\s+(?:it|this|that|them)|(?:let's|lets|we'll|i'll)\s+park"
        r"|(?:revisit|look at) (?:it|this|that) later)\b|先这样|暂时|这次先?试|现在先|先别|先试试"
        r"|再试一次|再跑一次|再说|放一放|回头再|等\S{0,4}再看|改天",
        _I,
    )
)

# The speaker reporting what they do or did ("I'll…", "Looking at…", 我先…).
# Someone else's setup ("my coworker's laptop is one giant nix flake", 我同事那边的项目是 Bazel
# 构建的): not the user's nor this project's, so never a memory (b26's hard negatives).
ELSEWHERE = re.compile(
    r"^(?:(?:fwiw|btw|so|fun fact|side note)[,:]?\s+)?(?:my|a|one of my|our|the other)\s+"
    r"(?:co-?workers?|colleagues?|friends?|buddy|teammates?|boss|brother|sister|roommates?"
    r"|classmates?|neighbou?rs?|team|company|dept|department)(?:'s|s'|’s)\s+(?:[\w-]+\s+)?"
    r"(?:laptop|machine|computer|setup|rig|project|repo|codebase|team|company|stack|dotfiles"
    r"|config|editor|workflow|startup|business|employer|office|lab)s?\b"
    r"|^(?:我)?(?:的)?(?:同事|朋友|同学|室友|隔壁组|别的组|别的团队|其他团队|另一个团队|另一个组)"
    r"(?:那边|那里|家)?的?(?:项目|电脑|仓库|团队|公司|配置|环境|机器|代码)",
    re.IGNORECASE,
)
# What someone else thinks, said by the user who then disagrees or only vents: "My coworker
# keeps saying we should rewrite the CLI in Rust. I don't buy it", 组长说 ORM 都是垃圾，我不太认同.
REPORTED_OTHER = re.compile(
    r"^(?:(?:fwiw|btw|so|ugh)[,:]?\s+)?(?:my|our|the)\s+(?:[\w-]+\s+)?(?:co-?workers?|colleagues?"
    r"|boss|manager|lead|cto|ceo|pm|friends?|teammates?|team ?mates?|architect|reviewer|director"
    r"|chair|client|partner)"
    r"\s+(?:keeps?\s+saying|says|said|thinks|insists|wants\s+(?:us\s+)?to|argues|claims|reckons"
    r"|suggests|suggested|keeps?\s+pushing(?:\s+for)?|is\s+pushing(?:\s+for)?|is\s+convinced)\b"
    r"|^(?:我们|我)?(?:的)?(?:组长|同事|老板|领导|经理|朋友|主管|架构师|leader|技术负责人|产品经理?"
    r"|主任|科长|处长|院长|校长|店长|甲方|合伙人)"
    r"(?:一直|总是|老是|又)?(?:说|觉得|认为|非要|坚持|吐槽)",
    re.IGNORECASE,
)
# ... or waves off as nothing to act on: "he was joking, ignore it", 他喝多了说的，不用管 (b38).
DISAGREE = re.compile(
    r"\bI (?:don't|do not) (?:buy|agree|think so)\b|\bI disagree\b|\bjust venting\b|\brant\b"
    r"|\bignore (?:it|that|this|him|her|them)\b|\bdon'?t (?:worry about|listen to) (?:it|that|him"
    r"|her|them)\b|\bnot (?:gonna|going to) happen\b|\bwith a (?:grain|pinch) of salt\b"
    r"|\b(?:he|she|they)(?:'s| is| was| were)\s+(?:just\s+)?(?:joking|kidding|drunk)\b"
    # ... or does not take up: "I'm not sold and nothing's been decided", "not convinced" (b40)
    r"|\b(?:I'?m|I am) (?:not (?:sold|convinced|so sure|on board)|unconvinced|skeptical"
    r"|sceptical)\b"
    r"|\bnothing(?:'s| has)? (?:been )?(?:decided|agreed|settled)\b|\bno decision (?:yet|made)\b"
    r"|还没(?:定|决定|拍板)|没(?:定|决定)下来|我(?:不太|并不)?(?:信服|买账)|我持保留"
    r"|不(?:太)?认同|不(?:太)?同意|我不这么(?:看|认为|觉得)|吐槽"
    r"|(?:不用|别|不必)(?:管|理|当真)|随口(?:一)?说|随便说说|喝多了|开玩笑的|听听就(?:好|行|算了)"
    # ... or waves it off as needless (round 47, b41: 我觉得完全没必要，先不理他)
    r"|(?:完全|根本|真的?)?没(?:有|啥|什么)?必要|(?:先|就)?不(?:用)?理(?:他|她|它|他们)"
    r"|\bno need\b|\bpointless\b|\b(?:a |total )?waste of time\b|\bnot worth (?:it|the)\b"
    r"|\bI don'?t see the point\b"
    # ... or puts it down to habit or to something they read (round 50, b45 zh-26: 我估计他又是
    # 看了哪个公众号): "he says that every month", "she probably read it on LinkedIn again"
    r"|\b(?:he|she|they) (?:says?|said|brings? (?:it|this|that) up|suggests?) (?:that|this|it)"
    r" (?:every|each) (?:week|month|quarter|year|time|sprint)\b"
    r"|\b(?:he|she|they)(?:'s| is| are| was)? (?:always|forever) (?:saying|on about|banging on)\b"
    r"|\b(?:he|she|they) (?:probably|must have|prob|likely) (?:just )?(?:read|saw|seen|watched"
    r"|heard) (?:it|that|this|about it|something)\b|\b(?:another|just a|the latest) (?:fad|hype)\b"
    r"|我(?:估计|猜|看|怀疑)(?:他|她|他们)(?:又|就|肯定|多半)?(?:是)?(?:看了|听了|刷到|看到)"
    r"|(?:他|她|他们)(?:又|总|老)是?(?:看了|听了|刷到|看到)[^，。]{0,10}(?:公众号|文章|视频|抖音|朋友圈)"
    r"|三天两头(?:说|提)|每(?:个月|周|年|次开会)都(?:要)?(?:说|提)一(?:次|遍)",
    re.IGNORECASE,
)
NARRATION = re.compile(
    r"^(?:i'll|i will|i'm going to|let me|i've|i have|i just|now i|next,? i|first,? i|done\b"
    r"|here's|here is|i (?:updated|added|changed|removed|moved|renamed|fixed|wired|refactored"
    r"|created|wrote|ran|set|replaced)\b|running|我先|让我|我来|我已经|已经|现在|接下来|下面"
    r"|我这就|我马上|我(?:给|把|刚|刚刚|又|顺便|也)\S|looking at|checking|reading|after reading"
    # ("看了一下：<what was found>", "I looked through the repo: …" open a finding, b33)
    r"|i looked(?![^:.]{0,40}:\s*\S)|i checked(?![^:.]{0,40}:\s*\S)"
    r"|(?:查看了|看了一下|查了一下)(?![^，。]{0,10}[：:]\s*\S)|正在|我现在(?:去|就|来)"
    r"|我(?:接下来|下一步|待会儿?|等会儿?|一会儿?)(?:去|就|来|再|先)?"
    r"|我(?:看|查|检查|翻|读)(?:了|过)(?![^，。]{0,10}[：:]\s*\S))",
    _I,
)

# A future supposed and what it would bring: "假如以后要接入…，估计…得重写", "if we ever move
# to …, we'd probably have to …", "suppose we switch …, the queries would all need …" (round
# 46, b40). Opened as a supposition and guessed at (估计 / 可能 / would / probably), it states
# nothing that holds; a condition with a rule ("if the build fails, always ping me", 如果测试
# 失败，先别提交) guesses at nothing and is not matched.
SUPPOSED = re.compile(
    # ("if you ever needed horizontal scaling, Kubernetes would be one route", round 51, b46)
    r"^(?:(?:and|but|so|oh|also|btw)[,\s]+)?(?:if (?:we|you|u) (?:ever|one day|someday)"
    r"|if (?:one day|someday|ever)|suppose|supposing|say we|let'?s say|what if|in case we ever"
    r"|assuming we (?:ever)?)\b"
    r"|^(?:不过|但是?|而且)?[，,]?\s*(?:假如|假设|如果|要是|万一|哪天|将来|以后)(?:以后|将来|哪天|有一天|真)?"
    r"(?:要|得|需要|想|打算)",
    _I,
)
# "…, don't hardcode it (anywhere else)", "…，别在代码里写死": an order with no object of its own,
# closing the turn, that follows from where the value is kept (said before it).
DONT_HARDCODE_TAIL = re.compile(
    r"[,.;，。；]\s*(?:(?:so|and|but|pls|please)\s+)*(?:don'?t|do not|never)\s+hard-?code\s+"
    r"(?:it|them|that|this|those|these|the values?|the numbers?)\b[^,.;]{0,30}[.!]?\s*$"
    r"|[，,。]\s*(?:所以)?(?:别|不要|千万别|不许)(?:在|往)?(?:代码|程序|前端|后端)?(?:里)?(?:再)?写死"
    r"[。！!]?\s*$",
    _I,
)


# The speaker taking back what they just said, to say it again: "actually no, 15", "hmm ok final
# answer 12", "scratch that", "make it 20", 哦不对，…, 算了还是 7 天 (round 51, b46).
SELF_REVISION = re.compile(
    r"^(?:(?:oh|hmm+|wait|ok(?:ay)?|um+|no)[,.\s]+)*(?:actually(?:,? no)?|no wait|scratch that"
    r"|make (?:it|that)|on second thought|final answer|wait no)\b"
    r"|^(?:哦|呃|嗯|啊)?[，,]?\s*(?:不对|算了|等等|等一下|还是改|不行)",
    _I,
)


# A question of general knowledge: what tells two named things apart ("whats the difference
# between a partial index and a filtered index", "useEffect 和 useLayoutEffect 到底啥区别";
# round 51, b46 / b47), asked of no one project: nothing of ours is named (PROJECT_OWNED).
DIFFERENCE_QUESTION = re.compile(
    r"\bdifference (?:between|from)\b|\b(?:what|how)(?:'s| is| are)? \S+(?: \S+)? different from\b"
    r"|(?:和|跟|与)[^，。？?]{1,30}?(?:到底|究竟)?(?:有)?(?:啥|什么|哪些)(?:区别|不同|不一样)",
    _I,
)
PROJECT_OWNED = re.compile(
    r"\b(?:our|we|we're|my|mine|this (?:project|repo|app|codebase|service)|here)\b"
    r"|我们|咱们|我的|项目里|仓库里|这个项目|我这",
    _I,
)
SPECULATION = re.compile(
    r"\b(?:probably|might|would|could|'d|maybe|perhaps|likely|i guess|i imagine)\b|'d\b"
    r"|估计|可能|大概|也许|说不定|恐怕|怕是",
    _I,
)

# A check's outcome at this moment and nothing else: "All 212 tests pass and the CI run is
# green.", "mypy is clean and all 301 tests pass on CI", 单测全部通过，CI 也是绿的 (round 46,
# b40). Every clause is a suite, a build or a linter passing; what the project is stays unsaid.
# A clause with anything else ("the tests pass only with TZ=UTC") is not matched.
_CHECK = (
    r"(?:(?:all|both|the|our|every)\s+)?(?:\d+\s+)?(?:(?:unit|integration|e2e|api|smoke|new|old"
    r"|remaining|existing)\s+)*(?:tests?|specs?|checks?|suites?|builds?|ci(?:\s+runs?)?|pipelines?"
    r"|lint(?:er|ing)?|mypy|ruff|eslint|type ?checks?|the ci run)"
)
_CHECK_ZH = (
    r"(?:所有|全部)?(?:的)?(?:(?:单测|单元测试|测试|用例|集成测试|e2e|CI|ci|构建|流水线|检查|lint"
    r"|类型检查)\s*)+(?:\s*\d+\s*个)?"
)
_CHECK_OK = (
    r"(?:\s+(?:all|now|still|again))*\s+(?:pass(?:es|ed)?|are passing|is passing|(?:is|are|went"
    r"|stays?) (?:green|clean)|succeed(?:s|ed)?|ran clean|is clean)(?:\s+(?:on|in) (?:ci|the ci"
    r"(?: run)?|main))?(?:\s+(?:now|again|as well|too))?"
)
_CHECK_OK_ZH = (
    r"\s*(?:也|都|全|全部|又)*\s*(?:通过了?|过了|全过了?|跑通了?|是绿的|绿了|全绿|没问题)"
)
CHECK_STATUS = re.compile(
    rf"^\s*(?:{_CHECK}{_CHECK_OK}|{_CHECK_ZH}{_CHECK_OK_ZH})"
    rf"(?:\s*(?:,|;|，|；|and|,\s*and)\s*(?:{_CHECK}{_CHECK_OK}|{_CHECK_ZH}{_CHECK_OK_ZH}))*"
    r"\s*[.!。！]*\s*$",
    _I,
)

# A plan or promise for later ("I'll do /search next time", 下次做 /search, 回头再加): what is
# still to do, never a standing fact.
PROMISE = re.compile(
    r"\bnext time\b|\b(?:later|tomorrow)\s*[.!]?$|\bin the next session\b"
    r"|^(?:ok(?:ay)?,? |sure,? )?I(?:'ll| will) (?:make sure|always|keep|remember|benchmark"
    r"|look into|check|try)\b"
    r"|下次|回头(?:再)?|之后再|明天再|以后再|改天|^(?:好的?[，,]?\s*)?我(?:以后|之后|今后)?(?:会|都会)",
    _I,
)

# The user saying it works now, right after the other side's fix: "That fixed it.", "works
# now", 好了，能连上了, 可以了. The checkpoints read it too (not an open request).
# The whole reply approves what the other side proposed ("go with that.", 就这么办). Bare "ok" or
# "thanks" are no approval: they follow reports as often as proposals.
APPROVAL = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yep|sure|great|nice|cool|perfect|sounds good|good idea|行|好的?|可以|嗯)"
    r"[,!.，！。]?\s*)*"
    r"(?:go with (?:that|it|this|your (?:plan|approach|suggestion))|go for it|let's do (?:that|it)"
    r"|do (?:that|it)|ship it|yes,? please|please do|agreed|sounds good,? (?:do it|go ahead)"
    r"|(?:那)?就这么定了?吧?"
    r"|就这么办|就这么做|就这么干|就这么改|就这样(?:做|办|改)?吧?|(?:就)?(?:按|照)(?:你说的|这个|你的方案)"
    r"(?:来|办|做|改|干)?(?:吧)?|照这个来|可以，?就这么(?:做|办|干|改))"
    r"[\s.!。！]*$",
    _I,
)
# An approval that repeats the proposal's own verb: "yep, pin it" after "I'd suggest pinning the
# base image to …", "sure, rename them" (b27). `heuristics` checks the verb is the proposal's.
APPROVAL_ECHO = re.compile(
    r"^(?:ok(?:ay)?|yes|yep|yeah|sure|agreed)[,!.]?\s+(?:go ahead and |please )?([a-z]{2,12})"
    r" (?:it|them|that|those)(?: please| then)?[\s.!]*$",
    _I,
)
# A reply that picks one of the options the other side listed: "b. go for it", "yep B. do it",
# "option 2 please", "(a)", 选 B, 方案二吧, 就 A 吧.
OPTION_PICK = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yep|yeah|sure|hmm|let's (?:do|go with)|go with|i'd go with|i'll take"
    r"|we'll take)[,!.]?\s+)*(?:option\s+)?\(?([a-d1-4])\)?(?:[.!,]|\s*$|\s+(?=(?:go|do|please|pls"
    r"|then|it is|that one|sounds)\b))"
    r"|^(?:(?:好|行|可以|嗯)[，,]?\s*)?(?:那就|就|选|用)?\s*(?:方案\s*)?([A-Da-d一二三四])\s*(?:方案)?\s*(?:吧|了|[，,。！!]|$)"
    # by its place: "second one.", "the first option please", 第二个吧, 选第一种 (b28)
    r"|^(?:(?:ok(?:ay)?|yes|yep|yeah|sure|hmm|let's (?:do|go with)|go with|i'd go with)[,!.]?\s+)*"
    r"(?:the\s+)?(first|second|third|fourth)(?:\s+one|\s+option)?(?:[.!,]|\s*$|\s+(?=(?:go|do"
    r"|please|pls|then|it is|sounds)\b))"
    r"|^(?:(?:好|行|可以|嗯)[，,]?\s*)?(?:那就|就|选|用)?\s*第([一二三四])(?:个|种|套|项)(?:方案)?\s*"
    r"(?:吧|了|[，,。！!]|$)",
    _I,
)
# A reply that opens with a bare name, then says why ("toml. we're moving everything off yaml",
# "zod, the rest of the api already uses it", "pnpm，npm 太慢了"): the name is the user's pick
# over what the other side said it would use (b28). Words that answer yes or no
# (`NOT_A_PICK`) are no pick.
# (also with its amount: "flat £2 no matter how late" after "per day or as a flat fee?", b33)
BARE_PICK = re.compile(
    r"^([A-Za-z][\w.+#-]{1,24})\s*(?:[.!]\s+|[,，。！]\s*|\s+(?=[£$€¥]\s?\d))(?=\S)"
)
# The same with a name of two or three words: "Font scale. most of our setters came up in …"
# after "the V-scale or the Font scale?" (b34); the whole name must be one the other side gave.
PHRASE_PICK = re.compile(r"^([A-Za-z][\w.+#-]*(?:[ -][A-Za-z][\w.+#-]*){1,2})\s*[.!]\s+(?=\S)")
# A Chinese reply that opens with its condition and the option it takes: "超过 8 度就直接打电话，
# 光发微信没人看" after "要不要同时打电话？还是只发微信？" (b34).
ZH_CONDITION_PICK = re.compile(
    r"^[^，,。？?]{1,24}?就(?:直接|先|只|都)?([\u4e00-\u9fff]{2,6})(?=[，,。！!]|$)"
)
# The other side asking which of two or more ways to go: "either cache it … or put a service
# worker in front with Workbox. Which way?", "可以用 ECharts，也可以用 AntV G2，你来定？",
# "按距离派，还是让阿姨们抢单？" (round 40, b29 / b30).
ASKS_WHICH = re.compile(
    r"(?=[^?？]*[?？])(?:\beither\b[^?]{3,240}?\bor\b|\bor\b[^.?]{1,120}\?|\bwhich\b"
    r"|也可以|还是|或者|你来定|你倾向|哪(?:个|种|一个|一种|样))",
    _I,
)
# The user asking how a recurring job is done: "remind me what the steps are when …", "how do
# we cut a release again?", 发版的步骤是什么来着 (b31).
ASKS_STEPS = re.compile(
    r"\b(?:what(?:'s| are| were)? the steps|what(?:'s| is) the (?:routine|process|procedure"
    r"|drill|checklist)\b|remind me (?:how|what)|walk me through|how do (?:I|we)"
    r"\b[^?]{3,80}\bagain)\b|(?:步骤|流程)(?:是什么|是啥|有哪些)|怎么(?:弄|做|操作|搞)来着"
    r"|(?:要|得|需要)?(?:做|走)?哪(?:几|些)步|要做哪些(?:事|准备)",
    _I,
)
# The first two Chinese characters of a reply, when they are not a pronoun's ("每天", "按距离").
ZH_OPTION_OPENING = re.compile(r"(?![我你他她它这那都])[\u4e00-\u9fff]{2}")
# The other side asking about the user's own setup: "你平时用什么编辑器？", "what OS are you on?",
# "which shell do you use?" (b32).
ASKS_ABOUT_YOU = re.compile(
    r"你(?:平时|一般|平常|现在)?(?:用|使用)(?:的是|的)?(?:什么|哪个|哪种|啥)(?:编辑器|IDE|系统|电脑|终端|shell"
    r"|浏览器|手机|输入法)|\bwhat (?:editor|ide|os|operating system|shell|terminal|machine|laptop"
    r"|browser) (?:do|are) you\b|\bwhich (?:editor|ide|os|shell|terminal|browser) do you"
    r" (?:use|prefer)\b"
    r"|\bwhat are you (?:on|running)\b"
    # "Which shell and OS are you on?", "Are you on macOS or Linux?", 你电脑是 Windows 还是 Mac？
    # (b34): the question names the setup, the user is asked what theirs is
    r"|\bwhich (?:[\w-]+ (?:and|or|/) )?(?:editor|ide|os|shell|terminal|browser|distro|machine"
    r"|laptop|phone)s? (?:are|do) you (?:on|using|running|use|working on|working from)\b"
    # "Which machine are you working on today, the office Mac or the Windows laptop?" (b36)
    r"|\bare you (?:on|using|running) (?:a |an )?(?:mac\w*|windows|linux|wsl|ubuntu|chromebook"
    r"|android|ios|iphone)\b"
    r"|你(?:的)?(?:电脑|笔记本|手机|开发机|机器)(?:是|用的是|装的是)[^？?。]{1,16}?还是"
    # "你本地是用 Docker 跑的，还是直接装的 PHP？", "do you run it locally in Docker or …?"
    # (round 45, b37): how the user runs it on their own machine
    r"|你(?:本地|本机|自己电脑上|电脑上|机器上)(?:是)?[^？?。]{0,16}?(?:跑|装|运行|开发)的?[^？?。]{0,16}?还是"
    r"|\b(?:do|are) you (?:run(?:ning)?|develop(?:ing)?|work(?:ing)?) (?:it |this |the app )?"
    r"(?:locally|on your (?:own )?(?:machine|laptop|computer|pc|mac))\b[^?]{0,60}?\bor\b"
    # "你电脑上 Node 是哪个版本？", "what Node version are you on?" (b35)
    r"|你(?:的)?(?:电脑|机器|开发机|笔记本)(?:上|里)[^？?。]{0,16}?(?:哪个|什么|多少)版本"
    r"|\bwhat (?:[\w.+-]+ )?version (?:of [\w.+-]+ )?(?:are you on|do you have|are you running)\b",
    _I,
)
# A reply that opens by naming its pick, Chinese: "ECharts 吧，…", "按距离派吧，…", "就用 G2 吧".
ZH_PICK = re.compile(
    r"^(?:那就|就|用|选)?\s*([^，,。！!？?\s吧][^，,。！!？?吧]{0,11}?)\s*吧(?:[，,。！!]|$)"
)
ORDINALS = {"first": "1", "second": "2", "third": "3", "fourth": "4"}
LETTER_OF = {"1": "a", "2": "b", "3": "c", "4": "d"}
ZH_NUMBERS = {"一": "1", "二": "2", "三": "3", "四": "4"}


def option_text(turn: str, label: str) -> str | None:
    """The text of option `label` ("b", "2", "二") in a turn that lists options: "(b) …",
    "Option B: …", "B) …", "方案二：…"; up to the next option or the end of its sentence."""
    label = ZH_NUMBERS.get(label, label)
    for_label = re.escape(label)
    zh = "|".join(k for k, v in ZH_NUMBERS.items() if v == label) or "_"
    start = re.search(
        rf"\(\s*{for_label}\s*\)|\boption\s+{for_label}\b\s*[:：.)-]?|(?:^|\s){for_label}\)"
        rf"|方案\s*(?:{for_label}|{zh})\s*[:：]?",
        turn,
        re.IGNORECASE,
    )
    if start is None:
        return None
    rest = turn[start.end() :]
    end = re.search(
        r"[,;，；]?\s*(?:or\s+)?\(\s*[a-d1-4]\s*\)|\boption\s+[a-d1-4]\b|方案\s*[A-Da-d一二三四]"
        r"|[。；！？]|[.;!?](?:\s|$)|\n",
        rest,
        re.IGNORECASE,
    )
    text = rest[: end.start()] if end else rest
    text = text.strip(" ,;:：，")
    return text if len(text) >= 8 else None


# The other side proposing a course, not only offering to act: "I'd suggest …", "I'd lean (b)",
# 我建议…, 推荐…, 我倾向…. A proposal ending "要这么做吗？" is still approved by "可以，就按这个来".
PROPOSAL = re.compile(
    r"\bI(?:'d| would)? (?:suggest|recommend|propose|lean)\b|\bmy (?:suggestion|recommendation)\b"
    r"|建议|推荐|我倾向|不如",
    _I,
)
# An approval that opens a longer reply ("行，就按你说的改，timeout 别动", "go with that, but
# keep the old flag"): the approval part, up to its comma.
APPROVAL_LEAD = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yep|sure|great|行|好的?|可以|嗯)[,，!.。]?\s*)*"
    r"(?:go with (?:that|it|this|your (?:plan|approach|suggestion))"
    r"|let's do (?:that|it)|sounds good"
    r"|(?:就)?(?:按|照)(?:你说的|你的方案|这个)(?:来|办|做|改|干)?|就这么(?:办|做|干|改|定了?))"
    r"(?=\s*[,，;；]\s*\S)",
    _I,
)
WORKS_NOW = re.compile(
    r"^(?:(?:ok(?:ay)?|great|nice|yes|yep|cool|perfect|thanks)[,!.]? )*"
    r"(?:(?:that|this|it)(?:'s| is)? (?:fixed it|did it|did the trick|solved it|works?(?: now)?"
    r"|worked|is working(?: now)?)|that was it|works(?=[,.!])"
    r"|(?:(?:the |it |everything )?[\w-]+ )?(?:works|passes|verif(?:y|ies)|builds|loads"
    r"|connects) now"
    r"|(?:works|working|passing|running) now|all good now)\b"
    r"|\ball (?:green|passing)\b"
    # 好了！真机上定位不闪退了: a confirmation naming the failure that is gone
    r"|^(?:好了|好啦|可以了|行了|ok了?)[！!，,。]\s*[^，。？?]{0,12}?(?:不|没)(?:再)?\S{1,4}了"
    r"|^(?:好了|好啦|可以了|行了)?[，,]?\s*(?:现在)?(?:能|可以)?(?:连上|用|跑通|跑|访问|登录|打开|编译|启动"
    r"|打包|构建|部署|发布|安装|运行|下载|上传|同步)了(?![吗么呢？?])"
    r"|^(?:没问题了|正常了|成功了|修好了|好使了)"
    # 好了，刷新正常了 / 可以了，页面能打开了: a confirmation naming what works again
    r"|^(?:好了|好啦|可以了|行了|ok了?)[，,]\s*\S{1,10}?(?:正常|好|通|成功|恢复)了",
    _I,
)
# What a fix did to a value's size or form: "I halved ticks_per_degree" (b34); a change verb
# of CHANGE_REPORT and FIX_REPORT alike.
# (a value put right by arithmetic, "divided the reading by 10", round 45, b38)
_RESHAPED = (
    r"halved|doubled|converted|shortened|widened|trimmed|normali[sz]ed|divided|multiplied"
    r"|rescaled|corrected|clamped|rounded"
)
# A report of a change made (the fix the user then confirms): "I set the role to X",
# "Replaced float with Decimal", 已补上, 改成了.
CHANGE_REPORT = re.compile(
    r"\b(?:I|we)(?:'ve| have)? (?:set|changed|fixed|added|updated|replaced|removed|moved"
    r"|switched|bumped|pinned|granted|restarted|configured|enabled|disabled|raised|lowered"
    rf"|increased|renamed|reverted|patched|{_RESHAPED})\b|^(?:Set|Changed|Fixed|Added|Updated"
    r"|Replaced"
    r"|Removed|Switched|Bumped|Pinned|Granted|Restarted|Configured|Enabled|Disabled|Raised"
    r"|Lowered|Increased|Renamed|Reverted|Patched)\b|已(?:经)?(?:补上|修复|改|加|更新|替换|删除"
    r"|重启|配置|开启|关闭|调)|改成了|换成了|补上了|加上了|^(?:改成|改为|换成|改用)"
    # 关掉了硬盘休眠 (round 51): a setting turned off or on, reported done
    r"|^(?:我)?(?:把)?(?:关掉了|关闭了|禁用了|停用了|打开了|开启了|启用了)",
)

# Why a decision was taken, said in the sentence before it: a failure or a cost.
# A sentence that says what fixed the problem just diagnosed: "Fix: …", "The fix: …", "Fixed by
# …", "Solution: …", "Workaround: …", 修复：…, 解决办法：…, 改法：….
FIX_LEAD = re.compile(
    r"^(?:(?:the )?(?:fix|solution|workaround|remedy)\s*(?:was|is)?\s*[:：—–-]|fixed (?:it )?by\b"
    r"|resolved (?:it )?by\b)|^(?:修复|解决办法|解决方法|解决|改法|处理)\s*[:：]",
    _I,
)
# A lead that announces how something is laid out, the detail to follow: "For reference: …",
# "For context: …", "FYI: …", 班次是这样的：…, 背景：… (b36).
EXPOSITION_LEAD = re.compile(
    r"^(?:for (?:reference|context|the record)|fyi|context|background|some background"
    r"|(?:a )?quick (?:note|context)|here's how (?:it|this|that) works|how it works)\s*[:：—–-]"
    r"|^[^，。：:？?]{1,16}?(?:是这样的|是这么回事|是这么安排的|是这么分的)\s*[:：]|^(?:背景|说明|参考)\s*[:：]",
    _I,
)
# What a place has of a kind, counted and then named or priced: "there are four membership
# tiers: Day Pass, …", "we have three room types — …", 游泳馆的卡一共三种：次卡 …, 书法班就两间
# 教室，墨香厅能坐 16 个人 (round 45, b37). A checkable fact with no file or tool in it, and a lead
# that announces its detail like EXPOSITION_LEAD.
_COUNT_WORD = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve)"
_TALK_NOUNS = (
    r"(?:things|problems|issues|reasons|ways|options|choices|questions|bugs|errors|failures"
    r"|steps|points|ideas|concerns|changes|approaches|possibilities|fixes|candidates)"
)
KINDS_COUNTED = re.compile(
    r"\b(?:there (?:are|were)|there're|we (?:have|offer|sell|run)|we've got|it has|they have"
    r"|(?:it|they) (?:comes?|come) in|has|offers|sells|stocks|runs)\s+(?:only |just |exactly )?"
    + _COUNT_WORD
    # not what talk counts ("there are two problems: …", "we have three options: …")
    + r"\s+(?!(?:[\w-]+\s+){0,2}?"
    + _TALK_NOUNS
    + r"\s*[:：—–-])"
    r"(?:[\w-]+\s+){0,2}?[\w-]+s\s*[:：—–-]\s*[\w'\"“`]"
    r"|^[^，。：:？?!！]{0,16}?(?:一共|总共|共有|共|只有|就|有)\s*[一二两三四五六七八九十\d]+\s*(?:种|类|档|级|间"
    r"|个|家|款|套|张|条)(?!问题|原因|办法|方案|步骤|选择|思路|地方|事|坑|bug|错)[\u4e00-\u9fff]{0,4}\s*[：:，,]"
    r"\s*[^。？?]*?(?:\d|、)",
    _I,
)
# Values by range, each range its own clause: "5 公里内免配送费，5 到 15 公里收 20", "under 5
# miles it's free, 5 to 15 miles is £3", "large starts at 5 people" (round 45, b37): the rule
# of a business, as checkable as a setting.
TIERS = re.compile(
    r"\d+\s*[\u4e00-\u9fffA-Za-z]{0,3}(?:以内|以下|以上|之内|内|起)[^，。；]{0,10}?(?:免|收|算|送|打|减|按"
    r"|是|为)[^。]*?[，,；;][^。]*?\d+\s*(?:到|至|-|~|～)\s*\d+"
    r"|\d+\s*(?:到|至|-|~|～)\s*\d+\s*[\u4e00-\u9fffA-Za-z]{0,3}\s*(?:收|算|是|为|送|付|交|按|免|打)"
    r"[^。]*?[，,；;]\s*(?:再|超过|超出|以上|更)"
    r"|\b(?:under|up to|below|less than|within)\s+[£$€]?\d+(?:\.\d+)?\s*(?:%|[a-z]+)?\b"
    r"[^.;?]{0,40}?"
    r"[,;]\s*(?:and\s+)?[£$€]?\d+(?:\.\d+)?\s*(?:to|-|–)\s*[£$€]?\d+"
    r"|\b(?:small|medium|large|standard|premium|basic|junior|senior|full|tier \d|band [a-z\d])\s+"
    r"(?:starts?|begins?|kicks? in) (?:at|from)\s+[£$€]?\d+"
    # "2 to 4 people medium, large from 5 people up" (e2e-heldout21 h21x03)
    r"|\b\d+\s*(?:to|-|–)\s*\d+\s+[a-z]+\s+(?:get\s+|gets\s+|is\s+|are\s+)?(?:small|medium|large"
    r"|standard|premium|basic|junior|senior|full)\b"
    r"|\b(?:small|medium|large|standard|premium|basic|junior|senior|full)\s+(?:from|for)\s+\d+"
    r"\s*(?:[a-z]+\s+)?(?:up|and up|and over|or more|plus)\b",
    _I,
)
# A correction that goes on to a second fault of the same work: "格式也不对，要 …", "The
# format is wrong too, it should be …" (b36).
ANOTHER_FAULT = re.compile(
    r"^(?:还有|另外|而且)?[^，。？?]{0,12}?也(?:不对|错了|有问题|不行|得改)"
    r"|^(?:also,?\s+|and\s+)?(?:the |your |that )?[\w\s-]{0,30}?\b(?:is|are|was|were)"
    r"\s+(?:also\s+)?(?:wrong|off|incorrect|not right)\s+(?:too|as well)\b"
    r"|^(?:also|plus),?\s+(?:the |your )?[\w\s-]{0,30}?\b(?:is|are|was|were)\s+(?:wrong|off"
    r"|incorrect|not right)\b",
    _I,
)
# The assistant's finding of where a value comes from, then what it found: "Found where it comes
# from: …", "Tracked down where the limit is set: …", 查到了，这个值是从…来的 reads as a fact (b36).
LOCATED_LEAD = re.compile(
    r"^(?:(?:I've |I have |I )?(?:found|figured out|tracked down|worked out|traced)(?: out)? where"
    r" (?:it|this|that|they|these|those|the [\w`.\s-]{1,40}?)"
    r" (?:comes? from|came from|lives?|is (?:set|stored|computed|defined|decided|configured))"
    r"|(?:找到|查到|查清楚)了?[^，。：:]{0,12}?(?:从哪(?:里|儿)?来的?|在哪(?:里|儿)?(?:设|定|算|存)的?))"
    r"\s*[:：]\s*(?=\S)",
    _I,
)
# The user reporting what the system does wrong now, not how it should be: "japanese jobs are
# being quoted at like a tenth of what they should be", "the totals keep coming out doubled",
# 日文的单子报价只有应该的十分之一 (e2e-heldout20 h20x03).
PROBLEM_REPORT = re.compile(
    r"\b(?:is|are|was|were) (?:being|getting|coming out|showing up|showing)\b[^.;?]{0,60}?"
    r"\b(?:(?:of |than )?what (?:it|they|that|this|these|those) should(?:'ve| have)?"
    r" (?:be|been|cost)"
    r"|wrong(?:ly)?|incorrect(?:ly)?)\b"
    r"|\bkeeps? (?:coming out|showing up|getting|being)\b"
    # a thing that keeps doing something to the user: "git keeps asking for my passphrase",
    # "the printer keeps dropping off the network" (e2e-heldout27 h27x03, once the model was
    # retrained with b43 and b44)
    r"|\b(?:it|this|that|[\w.-]+) keeps (?!(?:it|them|the|a|an|things|everything)\b)\w+ing\b"
    r"|(?:只有|是|成了|变成了?)(?:应该|本来|正常)的?[^，。]{0,6}?(?:几分之一|分之一|倍|一半)",
    _I,
)
# The user saying when they do a task of the work ("I run the backups at a quiet hour so nobody
# notices", "I do the payroll export late at night"): a habit of the work, not who they are.
TASK_AT_AN_HOUR = re.compile(
    r"^(?:I|we)\s+(?:usually\s+|always\s+|only\s+|just\s+)?(?:run|do|kick off|trigger|schedule"
    r"|start|deploy|push|ship|send|take)\s+(?:the|my|our|all the)\s+[\w\s-]{1,30}?\s+"
    r"(?:at (?:a |an )?(?:quiet|odd|off|late|early|dead)\b|at night|late at night|overnight"
    r"|in the (?:small hours|middle of the night)|after (?:hours|midnight|close|closing))",
    _I,
)
# A sentence that gives the reason for what was just said: "The reason is …", "Reason: …",
# "That's because …", "Mainly because …", 理由就一条：…, 原因是…, 主要是因为…, 之所以这么定是….
REASON_LEAD = re.compile(
    r"^(?:(?:the |our |my )?(?:main |only |one )?reasons?(?: (?:is|was|being|here))?\s*[:：,—–-]?"
    r"|(?:that's|that is|this is|it's|it is) (?:mostly |mainly |all )?because\b"
    r"|(?:mostly |mainly |simply |just )?because\b|why\s*[:：]|the why\b)"
    r"|^(?:理由|原因|主要原因|主要是因为|因为|之所以|出发点|考虑是|考虑到)",
    _I,
)
DECISION_CAUSE = re.compile(
    r"\b(?:because|since|we (?:shipped|lost|had|hit|keep)|keeps? (?:failing|breaking|crashing"
    r"|timing out)|kept (?:failing|breaking|crashing|leaving|dropping|losing|timing out)|timed out"
    r"|too (?:slow|heavy|big|expensive|brittle)|fail(?:s|ed|ing|ures?)?|broke|bugs?"
    r"|typos?|outages?|incidents?|crash(?:es|ed)?|leaks?|flaky|slow"
    # what the old way cost people: complaints, no-shows, double bookings (e2e-heldout17)
    r"|complain(?:ed|ts?|ing)?|no-shows?|double-?booked|double bookings?|lost (?:money|customers"
    r"|bookings|orders))\b"
    # people's habit that broke it, told after the decision: "people kept turning up late",
    # "it has caused two double bookings" (round 46, b39)
    r"|\b(?:people|customers|members|parents|users|guests|visitors) (?:kept|keep) \w+ing\b"
    r"|\b(?:has|have|had) caused\b"
    # nobody used the old way, or it was a chore: "Almost nobody bought it there", "the refunds
    # are a pain to do on a phone", "made checkout twice as slow" (round 49, b43)
    r"|\b(?:(?:almost|hardly|practically) (?:nobody|no one|anyone|anybody)|nobody|no one)"
    r" (?:ever |really |actually )?(?:bought|buys|used|uses|opened|opens|clicked|clicks|scanned"
    r"|scans|read|reads|booked|books|picked|picks|wanted|wants)\b"
    r"|\b(?:is|are|was|were) a (?:pain|chore|hassle|nightmare)\b"
    r"|\b(?:twice|three times|\d+x) as (?:slow|long)\b"
    r"|几乎没人|很少有人|没人(?:用|买|点|看|扫|订)|太折腾|麻烦得很"
    r"|因为|太(?:慢|重|大|贵|麻烦)|总是|老是|经常|报错|出过|挂了|超时|不稳定|投诉|吐槽|抱怨|差评"
    r"|翻车|炸了|被骂|亏了|赔了|放鸽子|爽约"
    # what failed, said plainly: "GPS 签到老失败", "井道里根本没信号" (e2e-heldout26 h26c04)
    r"|失败|没(?:有)?信号|连不上|用不了|不准|出错|丢单|漏单"
    # what happened before, told as the reason: "之前有客户怀疑骨灰不是自家的，闹得很难看", "去年
    # 月结有好几个工人中途走了", "last season two groups got locked in" (e2e-heldout22)
    r"|^(?:之前|以前|去年|上次|上回|上个?月|前年|上周|那次)(?:有|就|都|还)?[^。？?]{4,60}$"
    r"|^(?:last (?:year|season|time|month|week|summer|winter)|the last time)\b",
    _I,
)

# A reply that takes the other side's change and moves on ("good, server-side apply it is.",
# "perfect.", 好，…): with a cause in the change's turn, the fix is settled.
MOVING_ON = re.compile(
    r"^(?:good|great|perfect|nice|excellent|awesome|cool|好|很好|不错|完美|可以|行)\b", _I
)
# The cause of a failure, as the turn that fixes it gives it ("…which overwrites the labels",
# "…so rsync fails", 查到了：…, 原因是…).
CAUSE = re.compile(
    r"\b(?:because|which (?:overwrites|breaks|drops|means|is why)|so (?:the|it|rsync|\w+) fails"
    r"|doesn't|can't|isn't|wasn't|never|the (?:problem|issue|bug|cause) (?:was|is))\b"
    r"|原因|导致|因为|查到了|问题(?:出)?在|所以",
    _I,
)
# The turn that made the change says it now works ("the sandbox callback passes now",
# 沙箱回调已经通过, "the tests pass again").
VERIFIED = re.compile(
    r"\b(?:passes|pass|works|verif(?:y|ies)|succeeds|goes through|went through) (?:now|again)\b"
    r"|\bno longer (?:fails|crashes|conflict|errors)|已经?(?:通过|正常|跑通|好了)"
    r"|\b(?:is|are|installs?|builds?|runs?) (?:clean|green) now\b"
    r"|不再(?:报错|失败|冲突)",
    _I,
)

# A finding announced before it is told: "Found it.", "figured out the webpack OOM!!", "Found the
# cause of the 502s:", "worked out why tuesday volunteers kept getting double booked!!" (b36),
# 查到了：, 定位到了，, 找到原因了. What it introduces is a diagnosis.
FINDING = re.compile(
    r"^(?:found it|figured (?:it|this) out|(?:found|figured out|tracked down|worked out) (?:why"
    r"(?! (?:I|I'm|we) (?:like|love|prefer|hate|feel|want|enjoy)\b)"  # a taste, not a fault
    r"|what (?:was )?(?:caus|break|kill|block)\w*) [^:：]{3,80}?(?=[:：]|[!！]+$)"
    r"|(?:found|figured out|tracked down|pinned down) the"
    r" (?:[\w`.-]+ ){0,6}?[\w`.-]+|(?:找到|查到|定位到|查出|排查出)(?:原因|问题|根因)?了?"
    r"|原因找到了"
    # the fault named, then said solved, before its cause: "the clock drift mystery is
    # solved: …", "that double-booking bug is sorted —", 打印机乱码的问题查清楚了：… (round 50,
    # b45 en-35)
    r"|(?:the |that |this |our )?(?:[\w'-]+ ){0,5}?(?:mystery|problem|issue|bug|puzzle|glitch)"
    r" (?:is|was|has been|got) (?:finally )?(?:solved|sorted|cracked|fixed|explained|figured out)"
    r"(?=\s*[:：—–-])"
    r"|[^，,。：:]{2,24}?(?:的)?(?:问题|毛病|怪事|谜|bug)(?:终于)?(?:解决了|查清楚了|搞清楚了|弄明白了)(?=\s*[：:]))"
    r"(?:\s*(?:myself|finally))?\s*(?:[:：,，.。!！—–-]+|$)",
    _I,
)
# The speaker reporting a change they made, as the second half of a solved case: "I set it
# back to incremental", "excluded node_modules from that rule", 我把擦除改成按 sector 分批,
# 已经在首页加了权限请求. Wider than CHANGE_REPORT (which a confirmation of someone else's fix
# needs), but only read after a cause.
FIX_REPORT = re.compile(
    r"^(?:so\s+|then\s+|and\s+)?(?:(?:I|we)(?:'ve| have)?\s+(?:also\s+|just\s+)?)?(?:set|changed"
    r"|fixed|added|updated|replaced|removed|moved|switched|bumped|pinned|granted|restarted"
    r"|configured|enabled|disabled|raised|lowered|increased|reduced|renamed|reverted|patched|made"
    r"|wrapped|excluded|limited|capped|split|rewrote|rewritten|dropped|turned|put|marked|forced"
    r"|routed|pointed|scoped|guarded|deduplicated|debounced|serialized|throttled|upgraded"
    r"|downgraded|migrated|swapped|deleted|killed|cleared|flushed|regenerated|rebuilt|installed"
    rf"|uninstalled|applied|backported|exported|wired|gated|moved|kept|{_RESHAPED})\b"
    r"|^(?:我们?|已经?|随后|然后|后来)?(?:已经?)?(?:把|在|给|将)[^。；]{1,40}?(?:改|换|加|去掉|删|设|调|关"
    r"|开|补|升|降|拆|合|挪|移|固定|锁|除以|乘以|修正|纠正|换算)"
    r"|^(?:我们?)?(?:已经?|刚)(?:改|换|加|去掉|删|设|调|关|开|补|升|降|回滚|固定|锁|除以|乘以|修正|纠正"
    r"|换算)"
    r"|^(?:我们?|随后|然后)(?:又|也|就)?(?:加|改|换|去掉|删|调|关|开|补|升|降|拆|挪)(?:了|上|成)"
    # "现在压缩前先按 EXIF Orientation 转正，再去掉 EXIF。" (b33): what the code does now,
    # step by step, after the cause
    r"|^现在[^，。]{0,8}?(?:改成|改为|会|先|统一|一律)\S"
    # "现在闸机请求带上 request_id，服务端按 request_id 去重" (e2e-heldout21 h21c02): what the
    # requests carry now
    r"|^现在[^，。]{0,10}?(?:带上|加上|都带|改用|改走|只|直接|自动)\s?\S"
    # "现在用运单号做唯一键，重复推送直接忽略" (e2e-heldout20 h20x04): what it is keyed on now
    r"|^现在(?:改)?(?:用|按|以)\S{1,12}?(?:做|作为|当|来|去重|判重)"
    # a stopgap until the real fix: "Until the vented case arrives, uploads skip frames …" (b33)
    r"|^until\b[^,]{3,60},\s+\S"
    # what the code does now: "Times are now stored in UTC and shown in Europe/London", "For
    # ja, zh and ko it now counts characters" (e2e-heldout20 h20c03, h20x03); never a new
    # failure ("the build now fails")
    r"|^(?:for\s[^,]{1,40},\s*)?(?:the\s+)?[\w-]+(?:\s+[\w-]+){0,5}\s+"
    r"(?:(?:is|are)\s+now\s+[a-z]+(?:ed|en)\b"
    r"|now\s+(?!fails|breaks|crashes|errors|hangs|times)[a-z]+s\b)"
    # "Now the gate sends a request_id and the server drops repeats": the same, "now" first
    r"|^now,?\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+){0,4}\s+(?!fails|breaks|crashes|errors|hangs|times)"
    r"[a-z]+s\b",
    _I,
)
# A fix clause after the cause in the same sentence: the speaker's change ("I halved
# ticks_per_degree in dome.toml"), a setting it now has ("with orphans: 1 … the page count
# matches again"), 入库前加了坐标转换 (b34).
FIX_CLAUSE = re.compile(
    r"^(?:so\s+|and\s+)?(?:with|after (?:setting|adding|changing|switching))\b"
    r"|^[^，,。]{0,12}?(?:加了|改了|换了|去掉了|调了|补了|删了|关了|开了|改成|换成|改为)",
    _I,
)
# What holds after the change: "it now parks right on target", "matches again", 现在…对得上了.
FIX_OUTCOME = re.compile(r"\b(?:now|again)\b|现在[^，。；]{1,30}?了|就(?:好|正常|对)了", _I)
# A cause given in a clause ("…ran twice because both hosts had the job", 是因为…): a case only
# with the speaker's change right after it.
CAUSE_CLAUSE = re.compile(r"\b(?:because|bc|due to|caused by)\b|因为|由于|导致|原因", _I)
WHY_QUESTION = re.compile(r"\bwhy\b|\bhow come\b|\bwhat caused\b|为什么|为啥|怎么回事|什么原因", _I)
# A question that guesses at a cause ("Could the 401s be clock skew?", 会不会是字体没嵌进去？):
# the reply, yes or no, says what the cause was (b28).
CAUSE_GUESS = re.compile(
    r"\b(?:could|might|would|can) (?:it|this|that|the [\w' -]{1,40}?) (?:be|have been)\b"
    r"|\bis it (?:because|due to)\b|\bmaybe it's\b|\bwas it (?:the|a|an|because)\b"
    r"|会不会是|是不是(?:因为|由于)|难道是|是不是\S{1,20}?(?:导致|引起|的问题)",
    _I,
)
# Someone asking how a thing is done ("remind me how new methods get into the app?", "how do I
# cut a release?", 发版怎么弄？): a reply with ordered steps is a workflow (b28).
HOW_QUESTION = re.compile(
    r"\bhow (?:do|does|did|should|can|to|would) (?:I|we|you|one|new|a|an|the|this|that|it|they)\b"
    r"|\bremind me how\b|\bwhat(?:'s| is| are) the (?:steps|process|procedure|flow|workflow"
    r"|recipe)\b|\bwalk me through\b"
    r"|(?:怎么|如何)(?:弄|做|加|发|配|搞|操作|处理|部署|发布|上线|更新|导入|升级|跑)|步骤是|流程是",
    _I,
)
# A step given as an order: "run `make dump`", "…, then bump VERSION", 先跑…再….
STEP_ORDER = re.compile(
    r"(?:^|[:：,;]\s*|\bthen\s+)(?:run|bump|tag|push|commit|open|add|edit|copy|restart|deploy"
    r"|merge|call|set|build|publish|upload|regenerate|rebuild|eyeball|check|review|update"
    r"|install|create|apply|trigger|re-?run)\b|先(?:跑|执行|改|加|打|建|运行)",
    _I,
)

# Announcing an action yet to happen: no solved case can follow.
INTENT = re.compile(
    r"^(?:i'll|i will|i'm going to|let me|我先|让我|我来|我这就|我马上)",
    _I,
)

# The other side saying what it will do or just did: "I'll stage everything with git add -A",
# "I'll print the timings with print()", 我在每个 service 里都加了 console.log (round 40).
PLAN_OR_ACTION = re.compile(
    INTENT.pattern + r"|^(?:i(?:'ve| have)?\s+(?:added|put|used|wrote|set up|switched|created"
    r"|made|stubbed|hard-?coded)\b|我会|我(?:在[^，。]{0,20}?)?(?:都)?(?:加了|用了|写了|改成了"
    r"|放了|建了))",
    _I,
)
# What a counter-instruction says: "logging module please", "never git add -A", "not JSON
# files.", 日志走 pino, …都得删干净, 别…, 不要….
INSTRUCTS = re.compile(
    r"\bplease\b|\bpls\b|^(?:no|not|never|don'?t|do not|stop)\b(?!,?\s*\d)|\bnever\b|\binstead\b"
    r"|^[^,.;]{1,40}, not\b|别|不要|不用|都得|必须|一律|统一|^\S{1,12}走\s*\S|^\S{1,12}用\s*\S",
    _I,
)
# A prohibition whose object is only a pointer: "don't copy that anywhere else", "never push
# these", 别把这个发出去 (the object named nowhere in the sentence).
POINTER_RULE = re.compile(
    r"^(?:please\s+|and\s+|oh\s+and\s+)?(?:don't|do not|never)\s+(?:ever\s+)?[a-z]+\s+"
    r"(?:that|it|this|these|those|them)(?:\s+(?:anywhere(?: else)?|again|either|to anyone"
    r"|(?:in|into|to) (?:the )?[\w-]+)){0,2}\s*[.!]?$"
    r"|^(?:别|不要)把?(?:这个|那个|这些|它)\S{0,6}$",
    re.IGNORECASE,
)
# The assistant reading off where code takes a value from ("In session.ts, the TTL is read from
# the SESSION_TTL env var", 会话 TTL 是从 … 环境变量读取的): the code says it again next time.
READ_FROM = re.compile(
    r"\b(?:is|are) (?:read|loaded|parsed|pulled|taken) from\b"
    r"|是从[^，。]{1,40}?(?:读取|读出|加载|读)的",
    re.IGNORECASE,
)
# Where a symbol is defined or who calls it can be read off the code again: not a memory.
CODE_NAVIGATION = Gated(
    re.compile(
        r"\b(?:is |are )?(?:defined|declared|implemented) in\b|\b(?:imported|called|used) (?:by"
        r"|from) (?:the )?`?\w+\(?|\bcalls `?\w+\(|定义在|实现在|声明在"
        r"|被\S{1,12}(?:引用|调用|导入)|调用\s*\w+\(",
        _I,
    )
)

# A request for the current task; verbs that are also nouns ("build artifacts get
# uploaded") count only before an object.
IMPERATIVE = re.compile(
    r"^(?:please |pls |can you |could you |would you )?(?:fix|add|rename|run|write|refactor"
    r"|update|change|check|look|show|create|make|implement|delete|remove|move|try|debug|explain"
    r"|tell|open|find|generate|convert|replace|bump|revert|redeploy|rerun|re-run)\b|^(?:set"
    r"|install|upgrade|downgrade|merge|deploy|push|commit|build|restart|retry|rebase|clean"
    r"|clear)\s+(?:the|a|an|it|this|that|these|those|my|our|your|all|everything|up|down|again"
    r"|now)\b|^(?:帮我|帮忙|请帮|麻烦|把|给我?|跑一下|看一下|改一下|试一下|加上|去掉|删掉|删除"
    r"|改成|换成|重新|再试|再跑|重启|回滚|(?:执行|运行|部署|发布|删|改|装|跑)一下)",
    _I,
)

# Lead-ins stripped before rules run ("btw", "quick context:", 另外，).
FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|and|but|oh|ah|ugh|hmm+|btw|fyi|by the way|quick context|anyways?"
    r"|for context|note(?!\s+(?:for|to)\b)|please note|唉|哎|啊|注意(?!到)|some background"
    r"|for what it's worth|note that|just so you know|heads up|one more thing|另外|对了"
    r"|for background|as background|background|some context|the thing is|just so we're clear"
    r"|to be clear|是这样的|说清楚一点|先说清楚|说明一下|背景是"
    r"|顺便说一下|顺便|先介绍一下|补充一下|还有|好的|嗯|哦|那么|(?:先)?交代一下背景|背景介绍"
    # A whole word ("Someone" keeps its "So"), and its stop: "ok. plan for next session".
    r"|介绍一下背景|kindly)(?![a-z0-9_'])\s*[,，:：、—–.。!！-]?\s*"
    # Praise that opens a reply, only with its stop ("nice. keep pgx/v5 …"; "Great
    # Expectations is …" keeps its name).
    r"|(?:nice|great|cool|perfect|awesome|sweet|thanks|thank you|lgtm)\s*[,，.。!！]\s*)+",
    _I,
)

# Concrete tokens make a sentence a checkable fact rather than an opinion. Strong ones (URLs,
# hosts, ports, paths, files, identifiers, versions, times) can carry a user fact on their own;
# weak ones (product names, hyphenated words, quantities, quoted names) need a fact verb too.

STRONG_CONCRETE = re.compile(
    r"[a-z][a-z0-9+]*://\S+|\b[\w-]+(?:\.[\w-]+)+:\d{2,5}\b|\blocalhost(?::\d+)?"
    r"|\b[\w-]+\.internal\b|\b\w[\w-]*(?:\.[\w-]+)*\.(?:com|io|dev|net|org|internal|local|cn|app"
    r"|cloud|co|ai)\b|\b[a-z][\w-]*(?:\.[a-z][\w-]*){2,}\b|\b(?:on|at)\s+:?\d{4,5}\b"
    r"|\bport(?:\s+is)?\s*:?\s*\d{2,5}\b|\d{2,5}\s*端口|端口(?:是|为|号)?\s*:?\s*\d{2,5}|(?:~"
    r"|\.{1,2})?/[\w.\-]+(?:/[\w.\-]*)*|\b[\w.-]+/(?:[\w.-]+/?)*|\b[\w-]*\.(?:py|js|ts|tsx|toml"
    r"|ya?ml|json|md|go|rs|sql|sh|env|ini|cfg|conf|lock|txt)\b|\.env\.\w+"
    r"|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[a-z0-9]+(?:_[a-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b"
    r"|`[^`]+`|__\w+__|\bv?\d+\.\d+(?:\.\d+)?\b|\b\d{1,2}:\d{2}\b|凌晨\S{1,3}点|\d{1,2}\s*点(?:半"
    r"|\d+分?)?|\b(?:called|named)\s+\w+|叫\s*\w+",
)

# Every STRONG_CONCRETE alternative needs one of these: a dot before a word character or "-",
# a slash, underscore, backtick or digit, a camelCase joint, or one of its literal words. Text
# without any cannot match it, and this search costs ~1/10 of STRONG_CONCRETE's (its many
# alternatives are tried at every offset). Keep the two in step (tests/capture/test_capture.py).
STRONG_CONCRETE_GATE = re.compile(r"\.[\w-]|[/_`\d]|[a-z][A-Z]|localhost|凌晨|called|named|叫")

# A capitalised name after a verb that places something on a technology ("runs against a
# Testcontainers Postgres", "hosted on Render"): as concrete as an identifier.
TECH_NAME = re.compile(
    r"\b(?:runs? (?:on|against|in)|hosted (?:on|by)|deployed (?:to|on)|stored in|backed by|built"
    r" (?:on|with)|talks to|connects to|on top of)\s+(?:an? |the |our )?[A-Z][\w.-]+"
)

WEAK_CONCRETE = re.compile(
    r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b|\d+\s*(?:ms|seconds?|minutes?|hours?|mb|gb|分钟|秒|小时|个)"
    r"|\b(?=\w*[a-z])[A-Z0-9][a-z0-9]*[A-Z]\w*\b|(?<!\w)'[^']{2,40}'(?!\w)|\"[^\"]{2,40}\"|\b[A-Z]{2,}\b",
)


def words(*lines: str) -> frozenset[str]:
    """The whitespace-separated words of `lines` (keeps long word lists readable)."""
    return frozenset(word for line in lines for word in line.split())


# Chinese replies that leave the choice open: 都行吧, 随便吧, 你定吧.
NOT_A_ZH_PICK = frozenset(
    {"好", "行", "算了", "那好", "也行", "可以", "都行", "随便", "你定", "都可以"}
)
NOT_A_PICK = words(
    "yes yeah yep yup no nope nah ok okay sure thanks done fine right correct exactly both",
    "neither either later now agreed good great hmm wait actually same true false maybe",
    "perfect cool nice hm well so also and but lol ugh oops sorry please pls",
)
NOT_PATHS = words(
    "and/or async/await ci/cd i/o tcp/ip const/let input/output read/write on/off yes/no",
    "true/false client/server",
)

FACT_VERB = re.compile(
    r"\b(?:is|are|lives?|listens?|runs?|uses?|stored|located|points?|proxies|exposes?|reads?"
    r"|comes? from|called|named|handles?|hosted|deployed|needs?|requires?|pinned|mounted|served"
    r"|sits?|consumes?|signed|stores?|keeps?|writes?|sends?|ships?|pushes?|publishes?|forwards?"
    r"|strips?|syncs?|backs? up|goes|go to|kept|go(?:es)? (?:through|via|over|out (?:through|via))"
    r"|(?:moved|migrated|switched|cut over) to|reported to|routed (?:to|through)"
    r"|sent (?:to|through|via)"
    r"|belongs? (?:in|to|under)|lands? in|ends? up in|get(?:s)? written to"
    # a lookup between the business's names and the code's ids: "sheets A–D map to ice_sheet
    # ids 1–4" (round 45, b38), 会员等级 1–3 对应 member_level 表的 1–3
    r"|maps? (?:on)?to|mapped (?:on)?to|corresponds? to)\b"
    r"|是|在|放在|对应|映射到|存在|监听|用来|用于|负责|代理到|叫"
    r"|地址|位于|来自|发到|写到|推到|传到|存到|转发|去掉|同步到|用的是|部署在|指向|签名|托管在"
    r"|托管于|跑在|读的"
    # a stack said in Chinese prose: "后端 FastAPI + InfluxDB", "数据走 MQTT 进来" (e2e-heldout19
    # h19c04)
    r"|(?:后端|前端|服务端|客户端|数据库)(?:是|用的?是?|用)?\s*[A-Za-z]|走\s*[A-Za-z]"
    r"|powered by|backed by",
    _I,
)

# "X is used for Y", "X is called Y": a fact shape that needs no concrete token.
STRONG_FACT = Gated(
    re.compile(
        r"\b(?:is|are) (?:only )?used (?:for|to|as)\b|\bused for\b|\bis called\b|\bis named\b"
        r"|\bresponsible for\b|\blives? (?:in|at|under)\b|\blistens on\b|\bcomes? from\b"
        r"|\bproxies\b|\b(?:powered|backed) by\b|只?用来|用于|负责|代理到|叫\s*\S"
        r"|来自(?![习己然动觉])"  # not 来 + 自习 (e2e-heldout13 h13x02)
        r"|从\s*[^，。；]{1,30}?\s*(?:拿|取|读|获取|加载|注入)",
        _I,
    )
)

HEDGE = Gated(
    re.compile(
        r"\b(?:looks like|seems|maybe|probably|i think|i guess|perhaps|might|not sure|i wonder"
        # "no clue which one we're on tbh" (b34): what the speaker does not know is no fact
        r"|dunno|idk)\b|(?<!\bhad )\bno (?:clue|idea) (?:which|what|whether|if|how|where|when"
        r"|why|who)\b"
        # options weighed, none taken: "One option is moving the scorer to WebSockets, the
        # other is to keep polling" (b32)
        r"|\b(?:one|the first) option (?:is|would be)\b"
        # 大概 before a number is a measurement given roughly ("一张大概 300KB", b42), no hedge
        r"|\b(?:forget|forgot)\b|好像|可能|也许|大概(?!\s*\d)|估计|不确定|忘了|记不住|记不清|想不起",
        _I,
    )
)

REQUEST = Gated(
    re.compile(
        # (请 after "我都会…" or before a person asks someone else: "我都会随机抽 20 页请馆里老师
        # 人工校一遍", b33)
        r"\bplease\b|\bpls\b|(?<!都会)(?<!会)请(?!求|教|假|问|客|馆里|老师|同事|专家|师傅|人)"
        r"|麻烦|帮我(?:看|查|改|弄|修|配|写|加|处理)"
        r"|一直(?:超时|卡|慢)|\bfor me[.!]?\s*$",
        _I,
    )
)

FAILURE = Gated(
    re.compile(
        r"\b(?:failing|failed|fails|broken|crash\w*|got killed)\b|(?<!会)(?:报错|失败|挂了|崩了)"
        r"|被\s*kill"
        # "the 07:15 from Bellingham has vanished on weekdays" (e2e-heldout20 h20g03): something
        # gone that should be there is a fault seen once
        r"|\b(?:has|have|had) (?:vanished|disappeared|gone missing)\b|\bvanished\b"
        r"|(?:突然)?(?:不见了|消失了|没了)",
        _I,
    )
)

NOW = Gated(
    re.compile(
        r"\bnow\b|现在|目前",
        _I,
    )
)

# Splits "X is Y, so don't Z": the main clause states the memory.
# "how I cut a release, so you can do it next time: bump …, tag …" (round 51, b46): a lead
# naming the method that follows its colon; a "so …" inside it says why it is told, and the
# clause before it ("how I cut a release") is no statement of its own.
METHOD_LEAD = re.compile(r"^(?:here's |this is )?how (?:I|we) [^:：?]{3,80}[:：]", _I)

CONSEQUENCE = re.compile(
    r",\s*(?:so|which means|that means|therefore)\s+|，\s*(?:所以|因此)",
    _I,
)

MUST = Gated(re.compile(r"\b(?:must|need to|needs to|have to|should)\b|必须|需要|要先|之前", _I))

# --------------------------------------------------------------------------- scope

# Said for every project: the statement is global whatever it is about. The noun phrase must
# end at the projects word ("in every repo, …", "for every repository I work in"), so "every
# repository module" (a thing inside one project) is not it.
_PROJECTS = r"(?:projects?|repos?|repositories|repository|codebases?|code ?bases?|workspaces?)"
_PHRASE_END = (
    r"(?=\s*(?:[^\w\s]|$|(?:i|i'm|i've|we|you|of|that|which|where|in|on|at|and|or|too|alike"
    # "for all my repos from now on: …" (e2e-heldout19 h19x01)
    r"|as well|from now on|going forward|not just)\b))"
)
_EVERY_PROJECT = (
    r"\bfor (?:all|every one of|each of|any of) (?:my|our) code\b"
    r"|\b(?:for|in|across|on|to|with) (?:all|every(?: single)?|any|each)(?: one)?(?: of)? "
    rf"(?:(?:my|our|your|the|these) )?(?:own )?{_PROJECTS}{_PHRASE_END}"
    rf"|\b(?:all|every one|each|any) of (?:my|our) (?:own )?{_PROJECTS}{_PHRASE_END}"
    rf"|\b(?:any|every) {_PROJECTS} (?:of mine|of ours|i (?:work|touch|open|own|start"
    r"|create|maintain))\b"
    # "across the codebase" is this one ("swap calcAvg … across the codebase + update the
    # tests pls", b33): only more than one repository is every project
    r"|\bacross (?:(?:my|our|all|the) )?(?:projects|repos|repositories|codebases|code bases"
    rf"|workspaces){_PHRASE_END}|\bacross all {_PROJECTS}{_PHRASE_END}"
    r"|\b(?:whatever|whichever|no matter (?:the|which|what)|regardless of (?:the |which )?)"
    rf"(?: the)? {_PROJECTS}\b"
    r"|\bwherever (?:i|we) (?:work|code|am|go)\b"
    # "and one for everything I do: commit messages in the imperative" (e2e-heldout18 h18g03)
    r"|\b(?:for|in) (?:everything|anything|all the (?:code|work|stuff)) (?:i|we) (?:do|write"
    r"|touch|work on|build|ship|commit)\b(?![^:：]{0,30}\b(?:in this|here)\b)"
    r"|\b(?:for|to) (?:everything|anything) of (?:mine|ours)\b"
    # "in general, for all my stuff: …", "global thing, every repo: …" (e2e-heldout22)
    r"|\b(?:for|in|across) all (?:of )?(?:my|our) (?:stuff|things|work|code)\b"
    rf"|^(?:[\w' ]{{1,30}},\s*)?(?:every|any|each) {_PROJECTS}\s*[:：]"
    r"|\bglobal (?:thing|rule|preference|setting)\b|\bglobally\b"
    r"|(?:所有|每个|每一个|任何|全部|各个)(?:的)?(?:项目|仓库|代码库|工程)"
    r"|(?:不管|无论|不论)(?:在|是)?(?:哪个|什么|哪一个|哪)(?:项目|仓库|代码库|工程)"
)
# "everywhere" sets the scope of a rule ("I prefer tabs everywhere") but is no rule by itself:
# "rename fetchUser everywhere" is a request about this codebase.
EVERY_PROJECT = re.compile(_EVERY_PROJECT + r"|\beverywhere\b", _I)
# A rule said for every project the user has, in either language ("for all my repos: …",
# 我所有项目都一个规矩：…; round 51, b46): the user's own, wherever they work.
NAMED_RULES = re.compile(r"规矩|规定|规则|铁律|\b(?:rules?|conventions?)\b", _I)
FOR_EVERY_PROJECT = re.compile(
    _EVERY_PROJECT + r"|(?:所有|每个|全部|任何)(?:的)?(?:项目|仓库|代码库)(?:都|里|中|一样|通用)",
    _I,
)

# The agent doing something for the user, or answering what the user asks: "when you write SQL
# for me", "if u draft emails for me", "when I ask for status", "whenever I ask you about …"
# (round 51, b46), at the start or after a lead ("small thing but it bugs me: when …").
_AGENT_HANDS_ME = (
    r"(?:^|[:：]\s*|^(?:also|and|oh|btw|fyi)[,\s]+)(?:when(?:ever)?|if) (?:(?:you|u) \w+\b"
    r"[^,.;]{0,40}?\bfor me\b|I ask (?:you )?(?:for|about)\b)"
)

# A retention count ("keep 14 full backups", "retain the last 30 days", …，保留最近 7 份): how much
# of a project's own data stays. A standing rule even inside a request ("set up the nightly
# backup job, keep 14 full backups"), and always the project's (e2e-heldout6 h6x01).
_RETENTION = (
    r"\b(?:keep|retain)\s+(?:only\s+)?(?:the\s+)?(?:(?:last|latest|newest|most recent)\s+)?\d+"
    r"\s+(?:[\w-]+\s+){0,2}?(?:backups?|snapshots?|copies|versions?|releases?|builds?|artifacts?"
    r"|images?|dumps?|generations?|days|weeks|months)\b"
    # Chinese only as an instruction opening its clause: "日志保留 30 天" states a fact.
    r"|(?:^|[，,；;]\s*)(?:只|都|一律)?保留(?:最近|最新)?\s*\d+\s*(?:份|个|天|周|个月|版|次)"
)

# What belongs to one project: its paths, commands, variables, services and release process.
PROJECT_THINGS = re.compile(
    _RETENTION
    + r"|\b(?:publish\w*|deploy\w*|releas(?:e|es|ing)|prod|production|staging|pipelines?|ci"
    r"|migrations?|seed(?: script| data)?|feature flags?|clusters?|buckets?|monorepo|lockfile"
    r"|the \w+ (?:service|server|worker|database|db|table|job|script|workflow|app|site|page"
    r"|dashboard|portal|form)s?|our \w+"
    r"|the (?:fetcher|importer|exporter|scheduler|crawler|scraper|worker|bot|cli|daemon|backend"
    r"|frontend|api|sdk|uploader|consumer|producer))\b"
    r"|(?-i:\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b)|(?:^|\s)\.{0,2}/?[\w.-]+/[\w./*-]+|`[^`]+`"
    # a URL, an IP address or a host:port names this project's machines (e2e-heldout4 h4g03)
    r"|\b[a-z][\w+.-]*://\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[\w-]+(?:\.[\w-]+)+:\d{2,5}\b"
    r"|\bmake \w+|\b(?:npm|pnpm|yarn) run \w+"
    r"|发布|部署|上线|发版|生产|线上|预发|流水线|迁移|数据库|特性开关|集群|这个(?:包|模块|服务)"
    # a page of the app: 账单页, 登录页, 首页 (e2e-heldout19 h19x02)
    r"|[\u4e00-\u9fff]{1,4}页(?:面)?(?:上|里|的)"
    r"|我们的",
    _I,
)

# --------------------------------------------------------------------------- special triggers


REMEMBER = re.compile(
    r"^(?:please\s+)?(?:remember|keep in mind|note for later|note to self|for future reference"
    r"|don't forget|do not forget|never forget|make a note)\b(?!\s+(?:when|how|what|why"
    r"|if))(?:\s+that)?\s*[:,，：—–-]?\s*|^(?:请|帮我|你要|你)?(?:(?:一条|一点|这条|这点)?(?:一定|务必|千万)(?:要)?)?"
    r"(?:记住|记一下|记下来?|记得|别忘了"
    r"|不要忘了)[:,，：]?\s*",
    _I,
)

# The request at the end instead: "…, remember that." / "…，这个记下来。" / 记住了啊.
REMEMBER_TRAILING = re.compile(
    r"[\s,，;；:：—–-]+(?:please\s+)?(?:remember (?:that|this)|keep that in mind|note that down"
    r"|(?:这个|这点|这条)?(?:你)?(?:记下来|记住|记一下)[了啊哈哦吧]*)[\s.!。！]*$",
    _I,
)

# 记得 inside a sentence is a request; 我记得 / 还记得 / 记得之前 are "I recall".
REMEMBER_INLINE = re.compile(
    r"(?<!我)(?<!还)(?<!不)记得(?!之前|以前|当时|上次)",
)

# An earlier statement declared wrong, in a later session, standing on its own: "One thing I
# got wrong last time:", "Heads up, that JDK thing is outdated:", "Scratch what I said about
# X:", "I was wrong about the port:".
_LATER_CORRECTION = (
    r"|(?:heads up,?\s+)?(?:one thing |something |the bit )?I (?:got|had) (?:\w+ ){0,3}?wrong"
    r"(?: (?:last time|earlier|before|yesterday|about (?:\w+ ){0,3}?\w+))?"
    r"|(?:heads up,?\s+)?(?:that|the) (?:[\w.+-]+ ){1,4}?(?:thing|info|note|bit|part) is"
    r" (?:outdated|wrong|stale|out of date|no longer true)"
    r"|(?:scratch|forget|ignore|disregard|drop) (?:that|(?:what|everything|all|anything)"
    r" (?:that )?I(?:'ve| have| had)? (?:said|told you|wrote|mentioned"
    r"|gave you|described)(?: (?:to you )?(?:about|earlier|before|last time|on|for)"
    r"(?: [\w.+-]+){0,3})?)"
    r"|I was wrong(?: about (?:\w+ ){0,3}?\w+)?|I misspoke"
    # "the numbers I gave you for the limiter were wrong", "change of plans on the station"
    r"|(?:the |those |these |my )?(?:numbers?|values?|figures?|limits?|settings?|details?|info"
    r"|specs?|dates?) I (?:gave you|told you|said|mentioned)(?: (?:earlier|before|last time))?"
    r"(?: (?:for|about|on) (?:the |our )?[\w.+/-]+(?: [\w.+/-]+){0,2}?)? (?:were|was|are|is)"
    r" (?:wrong|off|outdated|incorrect|stale|not right)"
    # "the upload expiry I set before was a guess": a value of one's own, named by its thing
    r"|the (?:[\w.+/-]+ ){1,3}?I (?:gave you|told you|set|picked|chose|put in|made up)"
    r"(?: (?:earlier|before|last time))? (?:was|is|were|are) (?:wrong|off|outdated|incorrect"
    r"|stale|not right|(?:just )?a (?:guess|placeholder))"
    r"|change of plans?(?: (?:on|for|about) (?:the |our )?[\w.+/-]+(?: [\w.+/-]+){0,2})?"
)
# An earlier statement retracted as a whole clause, its subject inside: 之前说的对象存储那部分作废，
# 上次讲的部署流程已经不算数了, 前面提到的端口不对了: the fact that follows replaces it.
_ZH_WHEN = (
    r"(?:之前|上次|前面|刚才|昨天|以前|早先|上周|上个月|前几天|前两天|第一天|一开始|最开始|当时"
    r"|那天)"
)
_ZH_SAID = rf"{_ZH_WHEN}我?(?:跟你|和你|给你)?(?:说|讲|记|写|提|给|定)(?:过|到)?"
_ZH_VERDICT = (
    r"(?:[，,]\s*)?(?:整个|全部|都|就)?(?:已经)?(?:作废|不算数?|不对|错了|有误|过时|不用了|不成立|改了"
    r"|变了|废了|收回|撤回|当我没说过?|不要了)"
)
_ZH_THAT = r"(?:那部分|那块|这块|那段|那条|那个|这个|这条|那句话?|部分|方面|的事|的内容|的说法)"
# 之前说的对象存储那部分作废, 上次讲的部署流程已经不算数了, 之前跟你说固件放 MinIO 那个不对了,
# 第一天我说的支持哪些浏览器那句话，整个作废, 之前定价那条整个收回 (without 的, the subject ends on
# 那个/那条: "之前说要用 pnpm" alone withdraws nothing).
_ZH_RETRACTION = (
    rf"(?:{_ZH_WHEN}[^，,。；;：:的]{{1,16}}?{_ZH_THAT}"
    rf"|{_ZH_SAID}(?:的[^，,。；;：:]{{0,16}}?{_ZH_THAT}?|[^，,。；;：:的]{{1,16}}?{_ZH_THAT}))"
    rf"{_ZH_VERDICT}了?(?:哈|啊|呀|哦|哈哈)?"
)
# A clause after a retraction that only says the old thing went, naming nothing: "we ripped
# that out last sprint", "we dropped that vendor in March", "that's all gone now", 上周已经迁完了.
# The fact is in the next clause or sentence.
_REMOVED = (
    r"(?:ripped|tore|took|pulled|threw|phased|switched|turned) (?:\w+ )?out|got rid of|dropped"
    r"|removed|deleted|killed|retired|replaced|scrapped|ditched|sunset|deprecated|decommissioned"
    r"|shut (?:\w+ )?down|moved off|migrated off|stopped using|migrated away from"
)
GONE_CLAUSE = re.compile(
    r"^(?:(?:we|i|they|the team)(?:'ve| have| had)? (?:already |just |finally )?(?:"
    + _REMOVED
    + r")(?: (?:that|it|this|those|them)(?: (?!in\b|on\b|at\b|last\b)\w+)?)?"
    r"|(?:that|it|this|those)(?:'s| is| was| has been| got)? (?:\w+ ){0,2}?(?:gone|dead|removed"
    r"|replaced|ripped out|history|over))"
    r"(?: (?:out|away|off|already|now|anymore|a while ago|recently|last \w+|in \w+|weeks? ago"
    r"|months? ago))*"
    r"(?:,? (?:and |so )?(?:it|that|this|they)(?:'s| is|'re| are)? (?:doesn't|does not|don't"
    r"|no longer|not|isn't|aren't) (?:exists?|there|around|running|used|a thing)(?: anymore)?)?"
    r"[.!]?$"
    # "last week, all of it, it was wrong": the marker's own verdict, before what holds now
    r"|^(?:(?:last \w+|all of it|earlier|before|too)[, ]+)*(?:it|that|this|all of it)"
    r"(?:'s| is| was) (?:all |just |simply )?(?:wrong|incorrect|outdated|not right|stale|made up"
    r"|a mistake)[.!]?$"
    r"|^(?:上周|上个月|前几天|之前|早就|已经|都)*(?:已经)?(?:迁完|迁移完|换掉|删掉|去掉|下线|停用|废弃|拆掉)了?[，,。！!]?$",
    _I,
)
# A leading clause saying the old thing went, before what holds now: 上周已经迁完了：….
GONE_LEAD = re.compile(
    r"^(?:上周|上个月|前几天|之前|早就|已经|都)*(?:已经)?(?:迁完|迁移完|换掉|删掉|去掉|下线|停用|废弃|拆掉)了?[：:，,]\s*"
)
# The subject a Chinese retraction names: 之前说的「对象存储」那部分作废.
ZH_RETRACTED_ABOUT = re.compile(
    rf"(?:{_ZH_WHEN}([^，,。；;：:的]{{1,16}}?){_ZH_THAT}"
    rf"|{_ZH_SAID}(?:的([^，,。；;：:]{{1,16}}?){_ZH_THAT}?|([^，,。；;：:的]{{1,16}}?){_ZH_THAT}))"
    + _ZH_VERDICT
)
# What a Chinese retraction's subject may open with that is no part of it ("跟你说固件放 MinIO" is
# 固件放 MinIO), and subjects that name nothing (那个).
ZH_ABOUT_LEAD = re.compile(r"^我?(?:跟你|和你|给你)?(?:说|讲|提|记|写)(?:过|到)?的?\s*")
ZH_ABOUT_EMPTY = frozenset({"那个", "这个", "那条", "这条", "那句", "那句话", "那部分", "那块"})
# The rule of a withdrawal that states nothing in place of what it withdraws ("之前定价那条整个
# 收回，当我没说"): admission retires the withdrawn memory and archives the withdrawal itself.
WITHDRAWAL_RULE = "correction.retract.only"
# A retraction: the user withdraws an earlier statement as a whole ("Scratch what I told you
# about the job transport", 之前说的对象存储那部分作废) and states what holds now. Admission then
# retires the earlier memory about that subject and the copies that quote its values.
RETRACTION = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|oh|and|btw|yeah|yes|yep|right|hmm|actually|wait)[.,!]?\s+){0,3}"
    r"(?:scratch|forget|ignore|disregard|drop) (?:that|"
    r"(?:what|everything|all|anything) (?:that )?I(?:'ve| have| had)? "
    r"(?:said|told you|wrote|mentioned|gave you|described))\b|^" + _ZH_RETRACTION,
    _I,
)
# The thing a later correction says it corrects: "Scratch what I said about Adyen:", "I was
# wrong about the port:".
CORRECTED_ABOUT = re.compile(
    r"\b(?:about|for|on) (?:the |our |my )?(?!(?:the|a|an)\b)([A-Za-z0-9][\w.+/-]*"
    r"(?: (?!(?:we|i|it|that|this|and|but|so|or|is|was|are)\b)[A-Za-z0-9][\w.+/-]*){0,2})",
    _I,
)
# The thing a value of one's own belongs to: "the upload expiry I set before was a guess".
OWN_VALUE_ABOUT = re.compile(
    r"\bthe ((?:[\w.+/-]+ ){0,2}?[\w.+/-]+) I (?:gave you|told you|set|picked|chose|put in"
    r"|made up)\b",
    _I,
)
# "场地数量要改：…", "营业时间有变：…": a change announced for a named thing, the Chinese "change
# of plan on X:" (e2e-heldout11 h11g02). The colon is consumed by the marker's tail.
_ZH_CHANGE_OF_PLAN = r"[^，,。；;：:\s]{2,12}?(?:要改|得改|要变|有变化?|变了)(?:一下)?(?=\s*[：:])"
ZH_CHANGE_OF_PLAN = re.compile(_ZH_CHANGE_OF_PLAN)
CORRECTION = re.compile(
    r"^(?:(?:yeah|yes|yep|ok(?:ay)?|oh|right|hmm|alright)[.,!]?\s+){0,3}"
    r"(?:no+(?:pe)?|nah|not quite|not really|wrong|that's (?:not right|wrong|incorrect|not it"
    r"|not how (?:we|it) (?:do(?:es)? it|works)(?: here)?|not what we do|outdated|out of date"
    r"|stale|old info|no longer (?:true|right|the case)|changed)(?: now| anymore| any more"
    r"| these days)?"
    r"|that is (?:not right|wrong|incorrect)|you're wrong|actually|correction|wait"
    + _LATER_CORRECTION
    + r")\b(?:\s*(?:no"
    r"|that's (?:not right|wrong)))?\s*[,.:;!—–-]*\s*|^(?:不对|不是的?|不行|其实|错了|你说错了"
    r"|更正一下|更正|纠正一下|不不|等下|等等|等一下"
    r"|"
    + _ZH_RETRACTION
    + r"|"
    + _ZH_CHANGE_OF_PLAN
    + r"|(?:之前|上次|昨天)(?:说|讲|记|写)的(?=.{0,24}?(?:不对|错了|有误))"
    r"|\S{0,4}(?:搞|弄|写|说"
    r"|记)错了|(?:那个|这个|这条|这)?(?:信息|说法)?(?:已经)?(?:过时了|不对了|变了|不是这样了))(?:那个\S{0,4})?[，,。:：!！\s]*",
    _I,
)

# "No wheel for lxml yet", "no tests cover it": "no" as a determiner of the next word, not the
# answer "no, …" ("no the port is 9090" and "no 9090" still correct).
NO_AS_DETERMINER = re.compile(
    r"^no\s+(?=[a-z])(?!(?:the|it|its|it's|that|this|these|those|we|we're|you|i|i'm|not|no|but"
    r"|actually|wait|use|our|my|just|sorry|thanks|nope|never|that's|they|he|she|there|do|don't"
    r"|please|stop|keep|leave|go|let's)\b)",
    _I,
)

# A short leading clause before a correction in the same sentence ("Thanks, but no, the port is
# 9090"): cut, so that it does not stick to the memory.
LEAD_CLAUSE = re.compile(
    r"^[^.;:?!]{1,40}?[,;—–-]\s*(?:but\s+|but,\s+)?(?=(?:no|nope|nah|actually|wait|correction"
    r"|that's (?:wrong|not right))\b\s*[,:;—–-])|^[^。；？！]{1,20}?[，；]\s*(?:但是?|不过)?\s*"
    r"(?=(?:不对|错了|其实|更正|你说错了)[，,：:])",
    _I,
)

# Corrections that stand on their own, without a previous turn by the other side.
STRONG_CORRECTION = re.compile(
    r"^(?:(?:yeah|yes|yep|ok(?:ay)?|oh|right|hmm|alright)[.,!]?\s+){0,3}"
    r"(?:that's|that is|you're|wrong|correction|not quite|不对|错了|你说错了|更正|纠正"
    + _LATER_CORRECTION
    + r"|"
    + _ZH_RETRACTION
    + r"|(?:之前|上次|昨天)(?:说|讲|记|写)的.{0,24}?(?:不对|错了|有误)"
    r"|" + _ZH_CHANGE_OF_PLAN + r"[：:]"
    r"|我们不是这么|\S{0,4}(?:搞|弄|写|说|记)错了|不是\s*[^，,。\s][^，,。]{0,30}[，,]\s*(?:而|其实|应该)?是)",
    _I,
)

# An assistant acknowledging what the user said before restating it ("Understood:", 明白，).
CONFIRMATION = re.compile(
    r"^(?:(?:ok(?:ay)?,?\s+)?I(?:'ve| have) noted(?: that)?[\s,:—–-]+|I'll remember(?: that)?"
    r"[\s,:—–-]+(?!to\b)|noted that\s+"
    # "Noted the release flow: tag on main, …": the user's workflow, restated (b26)
    r"|noted\s+(?=the (?:[\w-]+\s+){0,2}(?:flow|process|workflow|procedure|routine|checklist)"
    r"\s*[:：])|(?:understood|got it|agreed|noted|decision noted|makes sense"
    r"|that makes sense"
    r"|sounds good|good call|good point|good catch|fair point|fair enough|you're right"
    r"|有道理|(?:你)?说[得的]对|好主意|同意"
    r"|thanks for (?:clarifying|the context|explaining|the correction|correcting (?:me|that)"
    r"|the heads[- ]up)|谢谢(?:说明|解释|澄清|纠正|指正|提醒)|记下了|记住了"
    r"|confirmed|right|perfect|great|will do|ok(?:ay)?|明白了?|收到|了解|懂了|确认一下|确认|没问题"
    r"|好的?|行)(?:\s*[,:：，—–-]+|\s+(?=so\b|—)))\s*(?:so\s+|那就|那|就)?",
    _I,
)

# The assistant promising to remember a step next time ("我下次会记得先跑 lint", "下次我会注意"):
# a promise about its own conduct on this task, not a rule set down.
REMINDER_PROMISE = re.compile(
    r"^(?:我)?(?:下次|以后|之后)?(?:我)?(?:会|都会|一定)?(?:记得|注意)", _I
)

# The assistant taking on the user's rule: "I'll follow your flow for schema changes: …", and
# after an acknowledgement, "I'll … from now on / unless … / 以后我都 …" (STANDING).
FOLLOW_YOUR = re.compile(
    r"^(?:(?:in|for|on|with) [^,]{1,40}?,?\s+)?I(?:'ll| will) (?:follow|stick to|keep to|use)"
    r" your\s+(?:[\w-]+\s+){0,3}?(?:flow|process|workflow|steps|conventions?|order|checklist"
    r"|rules?)\b",
    _I,
)
COMMITMENT = re.compile(
    # the standing time may lead: "From now on I'll finish with a short list …" (b42)
    r"^(?:(?:in|for|on|with|across) [^,]{1,40}?,?\s+|(?:from now on|going forward|from here on"
    r"|in future),?\s+)?I(?:'ll| will)\s+\w"
    r"|^(?:以后|今后|往后|之后)?[^，。]{0,16}?我(?:以后|今后|之后)?(?:会|就)?(?:都|一律|统一|不再|只)",
    _I,
)
STANDING = re.compile(
    r"\b(?:from now on|going forward|unless|by default|every time|whenever|in future|always"
    r"|never|no longer)\b|以后|今后|往后|之后都|不再|一律",
    _I,
)

# A procedure set down for later sessions: a lead framing what follows as the way to do a thing
# from now on ("For next time: …", "What works for regenerating X here: …", "For future profiling
# the repeatable way is: …", "the flow we agreed on: …", 以后…的顺序：…, 排查套路：先…, 以后 X 再
# 报错，先…), then ordered steps (`PROCEDURE_STEPS`). Not a promise ("I'll remember to …", 我下
# 次会记得…): those have no lead.
# What a named list of steps is called: "End-of-season routine for the wall: …" (b34).
ROUTINE_NOUN = r"(?:routine|checklist|procedure|drill|playbook|runbook)"
PROCEDURE_LEAD = re.compile(
    r"^(?:for (?:next time|the future|future [\w -]{1,30}?|later)\s*[:：,—–-]?\s*)?"
    r"(?:(?:the )?(?:repeatable|reliable|working|right|safe|proper|usual|known-good) (?:way"
    r"|recipe|order|sequence)(?: (?:to|for) [^:：]{1,50}?)?(?: here)? is\s*[:：]"
    r"|what works (?:for|when) [^:：]{1,60}?\s*[:：]"
    r"|(?:I(?:'ve| have) )?(?:set up |noted |written down |wrote down )?the (?:[\w-]+ ){0,2}(?:flow"
    r"|process|workflow|procedure|routine|recipe) (?:we|you) (?:agreed on|settled on|asked for"
    r"|use|want)\s*[:：])"
    r"|^for (?:next time|the future|future [\w -]{1,30}?)\s*[:：]"
    r"|(?:以后|今后|往后|下次)[^，。：:]{0,24}?(?:顺序|步骤|流程|套路|做法|办法|方法)\s*[:：]"
    r"|(?:顺序|步骤|流程|套路|做法|方法)\s*[:：]\s*先"
    r"|^(?:以后|今后|往后)[^，。]{1,60}?[，,]\s*先"
    # A how-to under a heading (b27): "Renewing the cert: run …, then …", "Cutting a hotfix goes
    # like this: a, b, and c", 发测试包：先…再…, 加一个数据源的步骤：…，再…, 告警我们是这么处理的：
    # 先…. Not progress under one ("Debugging this: I added …, then reran", 进展：先改了…).
    r"|^(?!(?:no|some|every|any)thing\b)[A-Za-z]+ing\b[^:：.;]{1,50}?\s*[:：]\s*"
    r"(?!(?:I|we|I've|we've)\b|[a-z]+ed\b)"
    r"|^[\w -]{3,50}? (?:goes|works|is done|runs) (?:like this|as follows)\s*[:：]"
    # "End-of-season routine for the wall: export …, reset …, then tag …" (b34)
    rf"|^(?:[\w-]+ ){{0,3}}?{ROUTINE_NOUN}"
    r"(?: for [^:：]{1,50}?)?\s*[:：]\s*(?!(?:I|we)\b)"
    r"|^[^，。：:；]{2,24}?(?:的(?:步骤|流程|做法|办法)|是(?:这么|这样|如下)(?:处理|做|弄|办|走)?的)\s*[:：]"
    # "monthly thing i do: first monday, pull …", "weekly chore we run: …" (round 46, b39): a
    # routine named as what the speaker does at its interval
    r"|^(?:[\w-]+ ){0,2}?(?:daily|weekly|fortnightly|monthly|nightly|quarterly|yearly|annual"
    r"|morning|evening|month-end|year-end|opening|closing) (?:[\w-]+ )?(?:thing|routine|job|chore"
    r"|ritual)s? (?:i|we) (?:do|run|follow)\b(?! not\b)[^:：]{0,30}[:：]"
    # 按你们的习惯，发版前我会：1) …；2) … / "As you usually do it, before a release I'll: 1) …"
    # (round 46, b39): the team's own habit, restated as its steps
    r"|^(?:按|照|依)(?:你们|你|咱们|我们)(?:的)?(?:习惯|惯例|老规矩|规矩|流程)[^：:]{0,20}[:：]"
    r"|^(?:as (?:you|we) (?:usually|always) do(?: it)?"
    r"|per your (?:usual|routine|process|checklist))"
    r"\b[^:：]{0,40}[:：]"
    # "Deployed the shop the way you usually do it: backed up …, then …", 月底对账我一般这么弄：
    # 导出…，跟…对，… (round 51, b47): the speaker's habitual way, named as such, then its steps
    r"|\bthe way (?:you|we|I) (?:usually|always|normally) (?:do|run|handle)"
    r" (?:it|them|this)\s*[:：]"
    r"|^[^，。：:；]{2,24}?(?:我|我们)?(?:一般|通常|平时|平常|都)(?:是)?(?:这么|这样)"
    r"(?:处理|做|弄|办|走|搞)?(?:的)?\s*[:：]"
    r"|^[^，。：:；\s]{2,12}\s*[:：]\s*先(?![不别])[^，。了]{1,40}[，,]"
    # The steps written into the project's docs ("Written into DEPLOY.md as agreed: pull …,
    # then …", 按约定写进了 DEPLOY.md：先…再…; round 45, b38): the workflow set down for later.
    r"|^(?:I(?:'ve| have) )?(?:written|wrote|added|put|noted|documented|recorded|saved) (?:(?:it"
    r"|this|them|the steps|the (?:[\w-]+ )?(?:flow|process|procedure|routine|checklist)) )?"
    r"(?:down )?(?:in|into|to) (?:the )?[\w./-]*?(?:\.md|\.txt|\.rst|readme|runbook|wiki|docs"
    r"|checklist)(?: [\w-]+)?(?:,? as (?:agreed|discussed|we agreed|we discussed|you asked))?"
    r"\s*[:：]\s*(?!\s|(?:I|we)\b)"
    r"|^(?:(?:按约定|按你说的|照你说的)[，,]?\s*)?(?:已经?)?(?:写进|写到|记到|记进|加到|补到)了?\s*"
    r"[\w./-]*?(?:\.md|\.txt|readme|文档|手册|说明|wiki)[^：:，。]{0,6}[:：]\s*先",
    _I,
)
PROCEDURE_STEPS = re.compile(
    r"\bthen\b|→|->|先.{1,60}?(?:再|然后|最后|事后)|[，,；;]\s*(?:再|然后|接着|最后)"
    # numbered steps ("1) … 2) …", "1. …；2. …"), three steps in a row after the lead's colon
    # ("…: first monday, pull the log, flag …, email …"), and 先 with two steps after it
    # (round 46, b39)
    r"|(?:^|[\s:：])1[).、．]\s*\S[^\n]{1,80}?[\s；;，,]2[).、．]\s*\S"
    r"|[:：](?!\s*(?:I|we|I've|we've|I'd)\b|\s*[a-z]+ed\b)\s*[^,;.:：\u4e00-\u9fff]{3,60}[,;]\s*[^,;.:\u4e00-\u9fff]{3,60}[,;]\s*"
    r"[^,;.:\u4e00-\u9fff]{3,60}"
    r"|先[^。，,；;]{1,40}[，,；;][^。，,；;]{2,40}[，,；;][^。，,；;]{2,}"
    # three clauses in a row after a lead naming the speaker's habit (我一般这么弄：导出账单，
    # 按单号对，对不上的发给老板; round 51, b47), as the English three-step form above; not
    # after any "是这样的：" (班次是这样的：早班 7-15，中班 15-23，夜班 …, a list of values)
    r"|(?:一般|通常|平时|平常|都)(?:是)?(?:这么|这样)[^：:，。]{0,3}[:：]"
    r"[^。，,；;：:]{2,40}[，；][^。，,；;]{2,40}[，；][^。，,；;]{2,}"
    r"|(?:like this|as follows)\s*[:：][^,]+,[^,]+,"
    # "Release routine for the lanes: build …, load it on lane 12 …, and roll it out …" (b35)
    rf"|{ROUTINE_NOUN}\b[^:：]{{0,60}}[:：][^,，]{{3,}}[,，][^,，]{{3,}}"
    r"[,，]",
    _I,
)
ON_EVENT = re.compile(r"\b(?:every time|each time|whenever|any time)\b|每次|每当", _I)

# The other side offering to do something ("Want me to …?", 要不要…？): a "no" declines it.
OFFER = re.compile(
    r"^(?:so,?\s+)?(?:do you want|want me to|should i|shall i|would you like|can i|may i|i can\b"
    r"|要不要|需要我|我要不要|是否需要|要我|我可以)",
    _I,
)

# Weak acknowledgements ("OK,", 好的，) confirm only a stated choice; a progress report after
# one ("好的，README 已经更新了") is narration.
WEAK_ACK = re.compile(r"^(?:ok(?:ay)?|right|perfect|great|will do|好的?|行|没问题)\b", _I)
PROGRESS = re.compile(
    r"已经|已\S?(?:改|换|加|删|移|修|更新|修改|完成|提交|添加|删除)|[修改加删换补]了\s*\S{0,3}\d"
    r"|\bI(?:'ve| have)\b|\b(?:updated|added|removed|done"
    r"|fixed|pushed|committed)\b",
    _I,
)

# A value a bare answer can carry: a digit, a dotted/hyphenated name, a path, an identifier.
DIGIT_OR_VALUE = re.compile(
    r"\d|\b[\w]+[-_./][\w./-]+|`[^`]+`|[一二三四五六七八九十两]+[点天周月号年]|周[一二三四五六日]"
)

# Plain declaratives about the project's setup with no fact verb list needed: "We use X here",
# "We're pinned to X because …", "Our X is …", 我们(这个 monorepo)用 X …
DECLARATIVE = re.compile(
    r"^(?:here,?\s+|in (?:this|our) \w+,?\s+)?(?:we|our team|the team)(?:'re| are)?\s+(?:use|run"
    r"|host|build with|deploy (?:to|on|with)|ship with|rely on|using|on|running|hosted on|built on"
    r"|(?:pinned|stuck|locked) (?:to|on|at)|standardi[sz]ed on|don't use|do not use|no longer use"
    r"|stopped using|don't run)\b(?!\s+(?:it|this|that|the same|a call|track)\b)"
    r"|^our\s+(?:[\w-]+\s+){1,3}?(?:is|are|gets?|runs?|lives?|has|uses?)\s+(?:\S+\s+){3}"
    r"|^(?:this|the|our) (?:service|repo|repository|project|app|codebase|package|library|tool"
    r"|module|monorepo|cli) (?:is|does|handles|owns|sits)\b"
    r"|^(?:这个|本|我们的?)(?:服务|仓库|项目|应用|库|工具|模块|系统)(?:是|就是|负责|主要做|用来)"
    r"|^we(?:'re| are) an? [\w.+-]+ (?:shop|house|team|stack|codebase)\b"
    r"|^我们是\s*\S+\s*(?:的)?(?:技术栈|团队|项目)"
    r"|^(?:我们|团队|这边|本项目|这个项目)(?:这个\s*\S{1,12}?\s*)?(?:都|一直|现在)?(?:用|使用|用的是"
    r"|跑在|部署在|基于|依赖|托管在)\s*[A-Za-z]"
    r"|^我们的\s*[A-Za-z\u4e00-\u9fff][^，。；]{0,12}?(?:跑在|部署在|托管在|放在|用的是|基于)",
    _I,
)

# What an acknowledged choice sounds like ("Tailwind stays", "we drop X", 保留, 统一用).
CHOICE = re.compile(
    r"\b(?:stays?|stick(?:s|ing)? with|keep(?:s|ing)?|drop(?:s|ping)?|go(?:es|ing)? with|we'll use"
    r"|we use|use|switch(?:ing)? to|moves? to|no \w+|instead of|over|it is)\b"
    r"|\byou (?:want|prefer|'d like|would like|'d rather)\b"
    r"|保留|统一|改用|换成|就用|不上|不迁|不用|选|替代|取代|以后用|放在|不放|按这个来|就这么办|不按"
    r"|按\S{1,8}?(?:分组|排序|划分|组织)|你(?:希望|想要|要的是|更喜欢)|(?:^|[，,]\s*)用\s*[A-Za-z]",
    _I,
)

CASE_ERROR = re.compile(
    r"(?i:\b(?:error|errors|exception|failing|failed|fails|failure|crash\w*|segfault|broke|broken"
    # a failure said as what a cause makes happen: "long enough for writes to fail" (h21g01)
    r"|(?:to|make|makes|made|let|lets) (?:\w+ ){0,2}(?:fail|time out|hang|crash)"
    r"|flaky|timeout|timed out|wouldn't|won't|couldn't|stopped working|not working|root cause"
    r"|caused by|turn(?:ed|s) out|due to|leak\w*|out of memory|oom|choking|chokes|hanging|hangs"
    r"|hung|stuck|slow|kept \w+ing|[45]\d\d|deadlock\w*|race condition"
    r"|(?:was|were|got|gets|is|are) blocked"
    r"|(?:happened|was|is) because|because (?:the|of|we|it|two)|it was (?:the|a|an)|the culprit"
    r"|culprit was|the (?:problem|issue|bug|cause) (?:was|is)|came from|stale|mismatch\w*"
    r"|white screen|blank page|memory blowup|[45]\d\ds|clock skew|intermittent\w*|(?:redirect"
    r"|login|infinite|restart|crash|reboot) loop|dropp(?:ing|ed))\b)"
    r"|\b[A-Z][A-Z_]{3,}\b(?=:)|\b\w+(?:Error"
    r"|Exception)\b|\b[A-Z_]*(?:FAILED|ERROR|DENIED|REFUSED|NOT_FOUND|TIMEOUT)[A-Z_]*\b"
    r"|\bE[A-Z]{4,}\b|报错|错误|异常|失败|挂了|崩溃|段错误|起不来|不生效|超时|原因|导致|偶发"
    r"|报\s*[A-Za-z]|卡住|卡死|很慢|慢是|一直|挂掉|泄漏|泄露|不稳定|因为|满了|白屏|根因|问题出在"
    r"|原来是|对不上|偶尔|偶发|死循环|丢掉|丢失|问题在于|的问题找到了|重复(?:消费|执行|发送|扣款|提交)",
)

CASE_FIX = Gated(
    re.compile(
        # ("a fixed +00:00 offset", "the fixed header": an adjective; e2e-heldout20 h20c03)
        r"(?<!\ba )(?<!\bthe )\b(?:fixed|fixes|fix was|the fix|solved|resolved|resolves|workaround"
        r"|got it working"
        r"|works again|working again|made it (?:pass|work)|went away|go(?:es)? away|did the trick"
        r"|sorted it|no longer|made (?:\w+ ){0,4}(?:stable|green|pass|work)|stopped (?:failing"
        r"|crashing|flaking)|(?:setting|adding|switching|changing|bumping|using|pinning|removing"
        r"|raising|lowering|passing|moving)\b.{1,60}\bmade (?:it|them|the \w+)|stopped (?:failing"
        r"|crashing|flaking))\b|\bfrom \d+\s*\w*\s+(?:down\s+)?to \d+|解决|修好|修复了|就好了"
        r"|后就好|(?<![不没])正常了|(?<![不没])恢复|就没了|(?<![不没太])稳定了|(?<![不没])成功|搞定"
        r"|降到|缩短到|就通过了|就行了|没再出现|不再出现|快了\S{0,4}倍|(?:改用|换成)\S+\s*(?:后|之后)"
        r"|就不会(?:再)?|不再(?:报错|出现|报|崩|超时|失败|丢)|对上了|问题解决|就稳定"
        r"|没再(?:报|出)|再(?:也)?没(?:有)?(?:出现|报|复现|出过)"  # 就再没出现过 (b31)
        # the change holds: "keeps it under 1 GB", "has been stable for two hours"
        r"|\bkeeps? (?:it|them|rss|memory|latency|\w+) (?:under|below|flat|stable)\b"
        r"|\b(?:is|are) gone\b|\bgo(?:es)? through now\b"
        # "the circumflexed letters print properly now" (b32)
        r"|\b(?:print|render|show|display|load|sync|upload|save|send|match)(?:s|es)? (?:properly"
        r"|correctly|fine|right) now\b"
        r"|\b(?:is|are|installs?|builds?|runs?) (?:clean|green|fine) now\b"
        # "the signatures match now", "checksums line up now" (b28)
        r"|\b(?:match|matches|line up|lines up|validate|validates|verify|verifies) now\b"
        # "patched it to skip empty runs, works now" (round 51, b47): the patch, then its proof
        r"|\b(?:patched|fixed|changed|switched|set|made) (?:it|them|that)\b[^.;]{1,60}?[,;—–-]\s*"
        r"(?:and\s+)?(?:it\s+|it's\s+|all\s+)?(?:works|working|fine|good) now\b"
        # "it's fine now", "and the map renders again" (b27): the thing works once more
        r"|\b(?:it|they|that)(?:'s|’s| is| are) (?:fine|ok|okay|good) now\b"
        r"|\b(?:the|it|they|everything)\b[^.;,]{0,30}?\b(?:renders|loads|works|finishes|passes"
        r"|starts|runs|builds|connects|exits|boots)\b[^.;,]{0,20}?\bagain\b"
        r"|\b(?:has|have) been stable\b|\bstable (?:all night|since|for (?:\w+ )?(?:hours?|days?))"
        # "pinned the tablets to 5GHz only and its been solid all week" (b33)
        r"|\b(?:it'?s|it has|has|have|they'?ve) been (?:solid|fine|rock solid|stable|good|clean)"
        r"(?: ever)? (?:since|all (?:week|day|night|month)|for (?:\w+ )?(?:hours?|days?|weeks?))",
        _I,
    )
)

_SYMPTOM_EN = (
    r"flaky|flakes?|fail(?:s|ed|ing|ures?)?|crash(?:es|ed|ing)?|errors?|timeouts?|timing out"
    r"|timed out|hangs?|hanging|leaks?|leaking|oom|ooms|segfaults?|resets?|deadlocks?|slowdowns?"
    r"|outages?|[45]\d\ds?|white screens?|blank pages?"
    # "hospice wifi dying every day ~12:30 was the ward kitchen microwave" (b33)
    r"|dying|dies|died|drops? out|dropping out|cutting out|cuts out|freez(?:es|ing)|froze"
    r"|blurry|fogg(?:y|ed|ing)|garbled"
)
_SYMPTOM_ZH = (
    r"白屏|乱码|超时|报错|崩溃?|闪退|卡顿?|收不到|打不开|连不上|起不来|溢出|失败|丢失|变慢|很慢"
    r"|不生效|重启|(?<!\d)[45]\d\d(?!\d)|是歪的|歪了|错位|重影|串了"
)

# A diagnosis stated as settled: "Root cause: …", "The root cause was …", 确认是时区问题：…,
# 试了，…确实是 X 的问题, 根因是…. The cause of a failure is worth a case even before the fix.
DIAGNOSIS = re.compile(
    r"^(?:the )?root cause(?: (?:was|is))?\s*[:：-]?\s*\S|^(?:the )?(?:real |actual )?cause"
    r" (?:was|turned out to be)\b|(?:确认|确定|原来|果然)是.{1,24}?(?:的)?问题"
    r"|确实是.{1,40}?的?问题"
    r"|^根因(?:是|在于|：|:)|^问题(?:出在|在于)"
    # "Found it: …", 找到原因了：…: the diagnosis follows the colon (e2e-heldout10 h10x04)
    r"|^(?:found (?:it|the (?:cause|culprit|bug|problem))|(?:找到|查到|定位到)(?:原因|问题)了?"
    r"|原因找到了)\s*[:：]\s*\S"
    # A symptom and what it was, in one sentence: "`test_x` was flaky because the fixture …",
    # "The 504s were the load balancer, not the app", "the segfaults weren't our code at all",
    # 页面白屏是因为…, 接口超时不是数据库的事，是 DNS. Not a cause in the speaker's own unfinished
    # work ("fail because I haven't written it yet").
    # A number far off and why: "Word counts for the Japanese jobs were wildly low because we
    # split on whitespace" (b36); the speaker's own doing is the cause here, not unfinished work.
    r"|\b(?:was|were|came out|kept coming out)\s+(?:wildly|way|far|much|badly|completely"
    r"|totally|massively|hugely)(?:\s+too)?\s+(?:low|high|off|short|long|small|big|large|slow)\b"
    r"[^.;?]{0,20}?\bbecause\b(?!\s+(?:I|we|you)\s+(?:haven't|hadn't|didn't|don't|still)\b)"
    rf"|\b(?:{_SYMPTOM_EN})\b[^.;?]{{0,40}}?\b(?:because|was caused by|were caused by)\b"
    r"(?!\s+(?:I|we|you)\b)"
    rf"|^(?:the |our |those |these |all the )?(?:[\w/.`-]+ ){{0,4}}?(?:{_SYMPTOM_EN})\b"
    r"(?: [\w/.`~:-]+){0,5}? (?:was|were|weren't|wasn't|turned out to be)\s+(?!(?:still|fixed"
    r"|gone|back|happening|intermittent)\b)\S"
    rf"|(?:{_SYMPTOM_ZH})[^，。？?]{{0,12}}?(?:是因为|是由于|的原因是|不是[^，。]{{1,12}}?(?:的事|的问题"
    r"|导致的)?[，,]\s*(?:而)?是)"
    r"|(?:NaN|溢出|乱码|白屏|闪退|段错误)\s*是(?!否|不是)\S{2}"
    # "商品图上传后是歪的：手机照片的方向信息存在 EXIF 里，…" (b33): the symptom, then why
    rf"|(?:{_SYMPTOM_ZH})[的了]?\s*[：:]\s*\S{{4}}",
    _I,
)

# A fix that did not work ("it's still failing", 还是报错): no solved case.
UNFIXED = Gated(
    re.compile(
        r"\bstill (?:fail\w*|broken|crash\w*|not working|doesn't work|happening|flak\w*|there)\b"
        r"|还是(?:报错|不行|失败|有问题|挂)|仍然(?:报错|失败|不行)|依然(?:报错|失败|不行)",
        _I,
    )
)

# A reason clause ("…because the runtime hasn't moved yet"): its "yet" does not make the main
# statement transient.
REASON = re.compile(r"\b(?:because|since|until|as long as)\b|因为|由于|直到", _I)

# A decision said not to exist yet: "nothing got decided", "we still haven't picked one",
# "parking it until the next sprint", 啥也没定下来, 还没拍板, 下个迭代再议. The decision words are
# there, negated or put off; no rule of the events family may read them as a decision.
NO_DECISION = Gated(
    re.compile(
        r"\b(?:haven't|have not|hasn't|has not|didn't|did not|couldn't|could not|never|not yet)"
        r"\s+(?:\w+\s+){0,2}?(?:decided|agreed|settled|picked|chosen|chose|made (?:a|the|any)"
        r" (?:call|decision))\b|\bnothing (?:was |got |has been |is )?(?:decided|settled|agreed"
        r"|final)\b|\bno (?:decision|call|verdict|conclusion)\b|\bundecided\b|\bup in the air\b"
        r"|\bstill (?:deciding|debating|discussing|arguing|going back and forth)\b"
        r"|\b(?:decide|revisit|discuss|settle) (?:it |this |that )?(?:in the |at the )?next"
        r" (?:sprint|iteration|week|release|quarter|meeting|cycle)\b"
        r"|(?:没|没有|还没|尚未|未|没能)(?:有)?(?:\S{0,4}?)(?:定下来|决定|拍板|敲定|确定|定论|结论|商量出|讨论出)"
        r"|(?:啥|什么|哪个)(?:也|都)没(?:定|决定|拍板|敲定|选)|再议|待定|悬而未决"
        r"|(?:下个?|下一个?)(?:迭代|版本|sprint|周|月|会)(?:再)?(?:定|说|议|讨论|决定)"
        # 先不做啊，就是问问 / "not doing it yet, just asking" (round 44, b36): a question about
        # a someday, no decision taken
        r"|(?:就是|只是|随便|单纯|就|只)问问|问问而已"
        r"|\b(?:just|only) (?:asking|curious|wondering)\b",
        _I,
    )
)

# An order about the thing at hand: 把这个页面的表单校验改成…, "make these two endpoints return
# 404, don't …". Its "别…" or "统一…" says how to do this one change, not a standing rule (b28);
# "this project"/这个项目 is no thing at hand.
TASK_AT_HAND = re.compile(
    r"^(?:please |pls |can you |could you )?(?:change|make|switch|turn|convert|update|rewrite"
    r"|fix|move|rename|refactor) (?:this|these|that|those|the current|the above)\b"
    r"(?! (?:project|repo|repository|codebase|team)\b)"
    r"|^(?:帮我|麻烦|你)?(?:把|给)(?:这个|这几个|这些|这两个|这里的?|这段|这块|这页|这张|这一页|当前|上面的?)"
    r"(?!项目|仓库|代码库|工程|团队)"
    # 帮我把 README 里的部署步骤翻译成英文，Markdown 格式别动: a job for now, with its terms (b31)
    r"|^(?:请|麻烦)?你?帮我把(?!.*(?:以后|今后|往后|一律|每次|所有|永远|都要|都得))",
    _I,
)
# A decision named as one ("ok decided: …", "we've decided to …", 定了：…, 决定了，…): it holds
# until it is changed, even when it says it holds "for now" (round 45, b38: "ok decided: the
# consent forms stay on paper for now …").
DECIDED_MARKER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|alright|right)[,.]?\s+)?(?:decided|decision(?: made)?|final (?:call"
    r"|decision))\s*[:：—–-]|\b(?:we|I)(?:'ve| have)?\s+(?:now\s+)?decided (?:to|that)\b"
    r"|^(?:(?:好|行|那|ok)[，,]?\s*)?(?:定了|决定了|拍板了|就这么定了?)[：:，,]",
    re.IGNORECASE,
)

VAGUE_DECISION = Gated(
    re.compile(
        rf"\b(?:with|use|keep)\s+{DEICTIC_EN}|(?:就用|就按|那就用){DEICTIC_ZH}"
        r"|\blet's\s+(?:keep (?:going|moving|at it)|move on|continue|carry on|proceed)\b",
        _I,
    )
)

# --------------------------------------------------------------------------- rule tables


PATTERN_RULES = _table(
    {
        "pattern.process": (
            r"\b(?:the|our|my)\s+(?:[\w-]+\s+){0,2}(?:workflow|process|convention|procedure|routine"
            r"|checklist|loop|flow)\b[^.]{0,30}?(?:\bis\b|\bhere\b|:)"
            # "Release process for this package: bump …, tag …, push."
            r"|^(?:[\w-]+\s+){0,2}(?:workflow|process|procedure|routine|checklist)"
            r"(?:\s+(?:for|of)\s+[^:：]{1,40})?\s*[:：]\s*\S"
            # "how I cut a release of the timing app: tag on main, let CI build …" (b31); a dot
            # inside a token ("tag v2.4.1 on main, …", "run ./deploy.sh, …") ends no sentence
            # (round 51, b47)
            r"|^(?:here's |this is )?how (?:I|we) [^:：?]{3,60}[:：]\s*\S(?:[^.]|\.(?=\S))*,"
            r"|(?:我们|团队|组里)的?(?:习惯|做法|惯例)(?:是|一般是|都是)"
            r"|(?:流程|约定|规范|惯例|规矩|步骤)(?:是"
            r"|如下|：|:)[：:]?\s*\S"
            # 我们发版是这样的：release 分支打 tag，…，最后在 Rancher 上点升级 (b26)
            r"|是这(?:样|么)(?:的|做的|走的|弄的)?\s*[：:].{2,80}?[，,；;]\s*(?:然后|再|接着|最后|之后)"
            # 入库是这么走的：粮车先过磅…，…以后才能开入库单 (b32)
            r"|是这(?:样|么)(?:做|走|弄)的\s*[：:].{2,80}?(?:先|以后|之后|才能|才)"
            # 每天晚上收档是这样：店长…做日结，…拍照发群里，总部…跑对账，… (round 46, b40): a
            # routine named, then three clauses in a row that each do something, no 然后 needed
            r"|是这(?:样|么)(?:的|做的|走的|弄的)?\s*[：:]"
            r"(?:[^，,；;。：:]{0,30}?(?:做|发|跑|写|点完|清点|拍|交|填|查|提|送|打|录|传|报|核|对|签|审|收"
            r"|存|盘|贴|扫|锁|关)[^，,；;。：:]{0,30}[，,；;]\s*){2,}[^，,；;。：:]{0,30}?(?:做|发|跑|写|点完"
            r"|清点|拍|交|填|查|提|送|打|录|传|报|核|对|签|审|收|存|盘|贴|扫|锁|关)"
        ),
        "pattern.sequence": (
            r"\b(?:always|never|must|needs?(?: to)?|requires?|make sure to|should|ha(?:ve"
            r"|s) to)\b.*\b(?:before|after)\b|\bfirst\b.*\bthen\b|^(?:before|after|when"
            r"|once)\s+\w+.*,|^to\s+\w+[^:,]{0,40}:\s|\b(?:are|is) (?:generated|created|built"
            r"|written|made|run|done) (?:with|by|via|using)\b.{3,80}\bthen\b"
        ),
        "pattern.convention": (
            r"^(?:all |every |each |our |the )?(?:[\w-]+\s+){0,3}?[\w-]+s\s+(?:should always"
            r"|must always|must|should|have to|need to)\s+(?:be|have|go|use|include|stay|run|pass"
            r"|get)\b|^[^，。,]{1,15}必须(?:是|带|有|写|用|经过|能|先)"
            r"|\S\s*(?:->|→|=>)[^>→]*?\S\s*(?:->|→|=>)\s*\S"
        ),
        "pattern.naming": (
            r"^(?:all |our |the )?(?:[\w-]+\s+){0,2}(?:branches|tags|commits|files|tables|columns"
            r"|topics|queues|buckets|env vars|variables|migrations|tests|endpoints|images)\s+(?:are"
            r"|should be|must be|get)\s+(?:named|called|prefixed|suffixed)\b|(?:分支|标签|表名"
            r"|字段|文件名|变量名|镜像|接口)\S{0,4}(?:都|统一|必须)?(?:以\S{1,12}(?:开头|结尾)"
            r"|命名(?:规则)?(?:是|为|：|:))"
        ),
        # Steps given as a list: "Hotfixes here go: branch off the tag, `make patch`, review,
        # cherry-pick"; a plural subject that "always" starts somewhere ("New services always
        # start from templates/svc, config goes in …").
        "pattern.steps": (
            r"^(?:[\w-]+\s+){1,3}?(?:here\s+)?go(?:es)?(?: like this)?\s*[:：]\s*\S.*,"
            r"|^(?:all |every |each |new |our )?(?:[\w-]+\s+){0,2}?[\w-]+s\s+always\s+(?:start"
            r"|branch|begin|come|get|go|live|run|need)\b[^.]*,"
        ),
        # "before tagging a release I run the e2e suite", "ask me before you drop a column",
        # 从 main 拉 release 分支，测完合回 main.
        "pattern.gate": (
            r"^(?:before|after)\s+\w+ing\b.{3,60}?\b(?:I|we)\s+(?:always\s+)?\w+"
            r"|\bbefore you (?:touch|change|edit|delete|drop|rename|run|push|commit|modify|deploy"
            r"|merge|remove)\b"
            r"|从\s*[\w/.-]+\s*(?:拉|切|开|建)[^，。]{0,20}分支|合(?:回|到|并到)\s*[A-Za-z][\w/-]*"
        ),
        "pattern.schedule": (
            # "每天下班前雷打不动三件事：核对…、导出…、…拍照传群里" (b35)
            r"(?:每天|每周|每月|每次)[^，。：:]{0,12}?(?:[一二三四五六七八九两几\d]+)件事\s*[:：]\S|"
            r"\b(?:deploys?|releases?|merges?|prod deploys?)\b.{0,20}?\b(?:only )?(?:on|go out on"
            r"|happen (?:only )?on)\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|weekdays)\b"
            r"|(?:只在|只有|只)?(?:周|星期)[一二三四五](?:和(?:周|星期)[一二三四五])?(?:才)?(?:发布|上线|部署"
            r"|发版)"
            # 我们发版固定周二下午 (b32)
            r"|(?:发版|发布|上线|部署)(?:时间)?(?:固定|都|只)(?:在)?(?:每)?(?:周|星期)[一二三四五六日]"
        ),
        "pattern.scoped_rule": (
            r"^(?:anything|everything|any change|all changes|every change|any pr|any code)\s+"
            r"(?:that\s+)?(?:touch(?:es|ing)|in|under|to|affecting)\b.{0,40}?\b(?:needs?|requires?"
            r"|must|has to)\b"
            r"|涉及\S{1,10}的(?:改动|修改|代码|变更|PR)\s*(?:都)?(?:需要|必须|得|要)"
        ),
        "pattern.on_event": (
            # "whenever the schema changes we run `make dump-schema`": the subject, no comma (b26)
            r"^(?:every time|each time|whenever|any time|anytime)\b[^,]{3,60}?\s(?:we|i)\s+"
            r"(?:always\s+|also\s+)?(?:run|bump|regenerate|update|commit|rebuild|re-?run|publish"
            r"|tag|push|deploy|restart|sync|notify|regen|rebase|fix|edit|correct|change|put|log"
            r"|record|add|file|check|open|mark|move|enter|type|copy|email|message|call|post|send)\b|"
            r"^(?:every time|each time|whenever|any time|anytime)\b[^,]{3,60},\s*(?:also\s+"
            r"|always\s+)?(?:run|bump|regenerate|update|commit|rebuild|re-?run|publish|tag|push"
            r"|deploy|restart|add|sync|notify|ping|regen|mark|open|file|label|skip|quarantine"
            r"|write|check|rebase|revert)\b"
            # "whenever a customer disputes an invoice, step one is `bin/acct-snapshot`",
            # "whenever a volunteer reports a wrong address, I fix it in the overrides sheet"
            # (round 40, b29 / b30): what the speaker does, whatever the verb
            r"|^(?:every time|each time|whenever|any time|anytime)\b[^,]{3,80},\s*"
            r"(?:(?:I|we)\s+(?:always\s+|just\s+|first\s+)?[a-z]+|step (?:one|1)\b|first\b"
            r"|the first (?:thing|step))"
            # "whenever I touch a firing schedule I dry-run it on kiln 2 …" (b32): no comma
            r"|^(?:every time|each time|whenever|any time|anytime) (?:I|we)\b[^,]{3,60}?\b(?:I|we)"
            r"\s+(?:always\s+|first\s+)?[a-z]+"
            # "my routine when a new tuning customer books: add them to the CRM, pull …" (b33)
            r"|^(?:my|our) (?:usual )?(?:routine|drill|checklist) (?:when|whenever|for|after|before"
            r"|once)\b[^:：]{3,60}[:：]\s*\S"
            # "every Friday before a distribution day I run the expiry report and print …": a
            # routine on a calendar, whatever it also says against (b31)
            # "start of every term it's the same dance: export …, archive …, copy …", "Sunday
            # night rota check, every week: see who …, send …, then lock …" (round 44, b36): a
            # routine named by when it recurs, then its steps
            r"|^[^:：.?]{0,40}?\b(?:every|each)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day"
            r"|weekday|day|morning|evening|night|week|month|term|semester|quarter|sprint|release"
            r"|season|year|payday|shift)\b[^:：.?]{0,40}[:：]\s*(?=\S)"
            r"(?!(?:I|we|it|the|same|this|that|they|nothing|something|no)\b)[^,，.]{3,}[,，][^,，]{3,}"
            r"|^(?:every|each)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekday|morning"
            r"|evening|night|week|month|quarter|sprint|release|payday)\b[^,.;]{0,60}?\b(?:I|we)"
            r"\s+(?:always\s+|first\s+)?[a-z]+"
            # "古籍 OCR 结果上线前，我都会随机抽 20 页…" (b33): before or after something, what
            # the speaker always does
            r"|[^，。]{2,24}(?:前|之前|后|之后|的时候)[，,]\s*(?:我|我们)(?:都|一般都|通常都|每次都)会\S"
            r"|每次.{1,24}?(?:都要|都得|要|得|需要"
            r"|记得"
            r"|必须)"
            # 每周五下班前先把…导出来，再…: a routine on a calendar, its first step and the next
            # (round 44, b36)
            r"|(?:^|[，,]\s*)(?:以后|今后)?每(?:天|晚|周|月|个?(?:星期|礼拜)[一二三四五六日天]?|周[一二三四五六日])"
            r"[^，。？?]{0,20}?先(?![不别])[^，。]{2,40}[，,]\s*(?:再|然后|把|接着)?[^，。]{2,}"
        ),
        "pattern.every": (
            r"(?:\b(?:every|all|any|each)\s+(?:new\s+)?(?:pr|pull request|commit|release|change"
            r"|merge"
            r"|deploy|push|branch|migration|endpoint)s?\b|\b(?:prs|pull requests|commits|releases"
            r"|migrations|deploys)\b).{0,60}?\b(?:needs?|must|should (?:have|get|be)|has to|have to"
            r"|requires?|gets?|go(?:es)? through)\b"
            r"|(?:PR|提交|合并|发布|上线|改动)\s*都?(?:必须|需要|得)(?:有|经过"
            r"|先"
            r"|走)"
        ),
        "pattern.i_review": (
            r"\bI (?:always |personally )?(?:review|check|approve|sign off on|test|read)"
            r" (?:every|all|each|any)\b"
        ),
        "pattern.we_always": (
            r"\bwe\s+(?:always|never|usually|normally|typically|don't ever)\s+(?:deploy|release"
            r"|ship|merge|run|tag|cut|review|rebase|squash|test|publish|push|force-push|commit|backport"
            r"|hotfix|migrate|roll back|rollback|pair)\b"
            # "We deploy with make ship, never by hand": the command an operation is done with
            # ("we deploy with fly.io" names a platform: a fact, not a routine)
            r"|^we\s+(?:deploy|release|ship|publish|provision|back up|migrate)\s+(?:with|via|using"
            r"|through|by running)\s+`?(?:make|just|npm run|pnpm|yarn|task|rake|invoke|nox|tox"
            r"|\./|bin/|scripts/)\S*"
        ),
        "pattern.zh.sequence": (
            r"每次.{0,20}(?:之前|以前|前|之后|(?<!最)后)|(?:之前|以前)[，,]?\s*(?:都|最好|一定|务必)?(?:先|要|需要"
            r"|必须"
            r"|记得)|(?:之后|后)[，,]\s*(?:要|需要|必须|记得|再)|的时候[，,]?\s*(?:记得|要|也要"
            r"|需要"
            r"|必须|同步|顺便)|先(?!不).{1,44}?(?:再|然后)|的话[，,]\s*先.{1,60}?(?:最后|之后)才|每个\s*\S{0,8}.{0,10}?都(?:必须|要|得|需要)"
            r"|(?:每次|每个).{0,20}?我(?:都|也)?(?:会|要)(?:亲自|先)?"
            # A step before a commit, merge, push or release: 提交前必须跑…, 合并前一定要….
            r"|(?:提交|合并|发布|上线|推送|部署|发版|改动|commit|push|merge|PR)\s*(?:之前|以前|前)"
            r"[，,]?\s*(?:都|也)?(?:必须|一定要|一定得|务必|需要|要(?!不)|得|记得)"
        ),
        "pattern.zh.we_usually": (
            r"(?:我们|团队)(?:一般|通常|都是|总是|一律)\S{0,10}(?:发|部署|上线|合并|发布)"
            # 以后所有导入入口都走 BOMInputStream: the route every case of something takes
            r"|(?:以后|今后|往后|从现在开始|从今以后)[^，。]{1,16}?都(?:走|经过)"
        ),
    }
)


# A place one moves between while working ("from main to the release branch"), not a choice.
_PLACE = (
    r"(?:the |this |that |my |our )?(?:\S+ )?(?:branch|file|tab|window|dir|directory|folder"
    r"|worktree|page|screen)\b"
)
# A setting's name in code (snake_case, or capitals: HOLD_TTL, MAXCONN) and the units of a value.
_CODE_NAME = r"(?-i:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_.]+|[A-Z][A-Z0-9]{2,})"
_UNIT = (
    r"(?:%|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|[kmgt]i?b|x"
    # money and counts: "raise the deposit to 80 euros", "cap it at 5 retries" (round 40)
    r"|euros?|eur|€|usd|dollars?|chars?|characters?|digits?|retries|attempts?|workers?|replicas?"
    r"|threads?|px"
    # what the apps people build measure: "make the threshold 2 kg" (e2e-heldout18)
    r"|kg|g|lbs?|mV|V|kW|W|°C|℃|cm|mm|km|Hz|kHz|MHz|dB|lux)"
)
# A setting's name as code writes it in capitals (HOLD_TTL, MAX_SLOTS_PER_DAY), and any code
# name with an underscore (batch_size too): what admission keys a changed number by.
SETTING_NAME = r"[A-Z][A-Z0-9]*_[A-Z0-9_]+"
CODE_KEY_NAME = SETTING_NAME + r"|[a-z][a-z0-9]*_[a-z0-9_]+"
# A setting's number: one decimal point at most ("改成 2.4.1" is a version bump, an edit).
_NUMBER = r"\d+(?:\.\d+)?(?![.\d])"
# A setting's unit said in Chinese (or in SI), right after its number.
_ZH_UNIT = r"\s*(?:秒|分钟|小时|天|周|个月|ms|s|min|h|MB|GB|KB|%|折|次|倍|位|台|米|字)(?![A-Za-z])"
# 改成 / 调到 / 设为 …: the verbs that give a setting a new value.
_ZH_SET_TO = r"(?:改成|改为|调成|调到|设为|设成|调整为|调整到)"

# A setting given its new value in words no setting rule above knows (e2e-heldout17:
# "LeaveWatcher 的释放时间改成 20 分钟。", "离座释放改成 25 分钟（LEAVE_RELEASE_MIN=25），…",
# "price.go 里 B 档改成 0.25", "Reminders now go out at 18:00 the evening before …", "close
# booking 15 min before departure now"): a change word, then within the clause a value with
# its unit, a time of day, a decimal or a code name's number. A bare count ("改成 3 个按钮") is
# an edit, not a setting.
_NEW_VALUE = (
    r"(?:\d{1,2}:\d{2}(?!\d)|\d{1,2}\s?(?:am|pm)\b|\d+\.\d+(?![.\d])|\d+(?:\.\d+)?\s*(?:"
    + _UNIT[3:-1]
    + r"|mins?\b|分钟|小时|个月|[秒天周年折倍%元])(?![A-Za-z])|"
    + SETTING_NAME
    + r"\s*=\s*\d)"
)
# A way replaced, reported done: "Switched the practice rota from weekly cron emails to an iCal
# feed …" (b33).
SWITCH_REPORT = re.compile(
    r"^(?:switched|moved|migrated|replaced|swapped)\b[^.;]{3,80}?\bfrom\b[^.;]{2,60}?\b(?:to|with)\b",
    _I,
)
# A setting named in code with its value, in prose: "…加了每日上限校验，MAX_SLOTS_PER_DAY = 2，超了
# 就提示…" (e2e-heldout18 h18c02): what the project is set to, checkable.
CODE_SETTING = re.compile(r"(?<![\w.])" + SETTING_NAME + r"\s*(?:=|is)\s*-?\d")
# One number for another, both said: "change 48 to 72", "bump it from 3 to 5" (the old value
# and the new one; admission reads them from CHANGE_FROM_TO).
_CHANGE_FROM_TO = (
    r"\b(?:change|changed|bump|raise|lower|move|take)\s+(?:it\s+|that\s+)?(?:from\s+)?"
    r"(\d+(?:\.\d+)?)\s*(?:to|->|→)\s*(\d+(?:\.\d+)?)(?!\d|\.\d)"
)
CHANGE_FROM_TO = re.compile(_CHANGE_FROM_TO, re.IGNORECASE)
# A named setting given a new amount, the old one said too: "bump the claim auto-approve limit
# from $1,500 to $2,500", "lower the nightly batch size from 5k to 2k" (round 47, b41): the verb,
# a few words naming the setting, then "from <amount> to <amount>", amounts with a currency sign,
# thousands separators or a unit.
_AMOUNT = r"[$€£¥]?\d[\d,]*(?:\.\d+)?\s*(?:%|[a-z]{1,7}\b)?"
_NAMED_FROM_TO = (
    r"\b(?:change|bump|raise|lower|increase|decrease|reduce|cut|move|take|up|drop|set)\s+"
    r"(?:(?!from\b)[\w'./-]+\s+){1,6}from\s+" + _AMOUNT + r"\s*(?:to|->|→)\s*" + _AMOUNT
)
VALUE_CHANGE = re.compile(
    r"(?:改成|改为|调成|调到|设为|设成|调整为|调整到|降到|降为|升到|缩短到|缩短为|延长到|延长为|提高到"
    r"|放宽到|收紧到|减到|加到|应该是)[^，,。；;！!？?\d]{0,8}?"
    + _NEW_VALUE
    + r"|\b(?:now|changed|moved|bumped|raised|lowered|reduced|increased|shortened|extended|updated"
    r"|adjusted|set)\b"
    r"[^.;!?，。]{0,40}?(?:\b(?:at|to|by|is|are|of|every)\s+|\s)[(（]?"
    + _NEW_VALUE
    + r"|(?<![\w.])"
    + _NEW_VALUE
    + r"[^.;!?]{0,30}?\bnow\b"
    # a code name given a bare number: "DWELL_MINUTES 改成 30" (e2e-heldout18)
    + r"|(?-i:\b"
    + SETTING_NAME
    # (in backticks too: "Done: `LOOP_MASTER_REQUIRED` is now 5", round 49, b43)
    + r")`?\s*(?:改成|改为|调成|调到|设为|设成|现在是|is now|now|to)\s*-?\d"
    # …after a verb of change: "MIN_CHECKIN_PHOTOS lowered to 4" (e2e-heldout26 h26g01)
    + r"|(?-i:\b"
    + SETTING_NAME
    + r")`?(?:\s+default)?\s+(?:lowered|raised|bumped|increased|reduced|dropped|cut|changed|set"
    r"|moved)\s+to\s*-?\d"
    # …its old number said first: "NIGHT_SHIFT_DAILY 从 40 改成 50", "MAX_SEATS from 6 to 8"
    # (e2e-heldout26 h26c02)
    + r"|(?-i:\b"
    + SETTING_NAME
    + r")`?(?:\s+default)?(?:\s+(?:goes|went|changed|moved|raised|lowered|bumped|increased"
    r"|reduced|dropped|cut))?\s*(?:从|from)\s*-?\d[\d.,]*\s*\S{0,3}?\s*"
    r"(?:改成|改为|调成|调到|改到|降到|升到|涨到|提到|到|to|->|→)"
    r"\s*-?\d"
    # …or a range: "FLOODLIT_COURTS now covers courts 1 to 5" (e2e-heldout16 h16g01)
    + r"|(?-i:\b"
    + SETTING_NAME
    + r")\s+now\s+(?:covers|spans|includes|runs over)\s+(?:[\w-]+\s+)?\d+\s*(?:to|through|–|-)"
    r"\s*\d"
    # "make the threshold 2 kg", "make it 45 minutes" (e2e-heldout18)
    + r"|\bmake (?:it|them|that|the [\w-]+(?: [\w-]+)?) (?:to )?(?:"
    + _NEW_VALUE
    # (or a signed number: "make the cloud limit -12, our sensor reads warm")
    + r"|-\d+(?:\.\d+)?\b)"
    # an order to give a named setting a new value: "bump the idle timeout for the ephemeral
    # runners to 20 minutes", "lower the rental deposit to £40" (round 49, b43; b42's "bump the
    # refuel charge to $9.50/gal")
    + r"|\b(?:bump|raise|lower|increase|decrease|reduce|extend|shorten|change|set)\s+(?:the|our"
    r"|its|their|all|every|each)\s+(?:(?!to\b)[\w'./-]+\s+){1,8}?to\s+[(（]?"
    + r"(?:[$€£¥]\d[\d,]*(?:\.\d+)?(?![\d.,]*\d)|"
    + _NEW_VALUE
    + r")"
    # …or the new number against the old, after an order to change it: "change the badge rule,
    # Loop Master should need 5 finished loop exercises not 3" (b43)
    + r"|\b(?:change|bump|raise|lower|set|make)\b[^.?!]{0,60}?(?<![\w.:])\d+(?:\.\d+)?\s+"
    r"(?:[\w-]+\s+){0,4}?(?:not|instead of|rather than)\s+\d+(?:\.\d+)?(?!\w|\.\d)"
    # …or a bare number after the old value said with its unit: "10 minute holds are too long,
    # people sit on seats … make it 7" (e2e-heldout27 h27g01)
    + r"|(?<![\w.])"
    + _NEW_VALUE
    + r"[^?!]{0,160}?\bmake (?:it|them|that) \d+(?:\.\d+)?(?!\w|\.\d|\s*[%$€£¥])"
    # a bare number for the old one said first in the same clause run: "封面图之前说压到宽
    # 1080，太糊了，…，改成宽 1440", "the cover was 1080 wide, too soft, make it 1440" (round 50:
    # e2e-heldout29 h29c04 lost the change once the model read it at 0.59)
    + r"|(?:之前|原来|以前|本来|原先)[^。；;！!？?]{0,20}?(?<![\w.])\d+(?:\.\d+)?(?![\d.])"
    r"[^。；;！!？?\d]{0,40}?(?:改成|改为|调成|调到|改到|换成)[^，,。；;！!？?\d]{0,4}?\d"
    + r"|\b(?:was|were|used to be)\s+(?:[\w-]+\s+){0,2}?(?<![\w.])\d+(?:\.\d+)?(?![\d.])"
    r"[^.;!?\d]{0,60}?\bmake (?:it|them|that) \d"
    # one number for another: "change 48 to 72" (e2e-heldout19 h19x01)
    + r"|"
    + _CHANGE_FROM_TO
    + r"|"
    + _NAMED_FROM_TO
    # an order given anew: "League.rank/1 now sorts by points, then head-to-head, then …"
    + r"|\bnow\s+(?:sorts?|ranks?|orders?)\s+(?:\w+\s+)?by\s+[^.;]+?,\s*then\b",
    re.IGNORECASE,
)

# The speaker's own change made to carry a decision out, reported right after it ("I've turned
# on WAL mode so the nightly backup can copy the file", 我已经打开了 WAL 模式; round 45, b38).
CARRIED_OUT = re.compile(
    r"^(?:I|we)(?:'ve| have)\s+(?:already\s+|just\s+)?(?:turned|set|added|configured|enabled"
    r"|wired|pointed|created|switched|moved|put|updated|changed|pinned|installed)\b"
    r"|^(?:我们?)?(?:已经?|刚)(?:把|在|给)?[^。；，,]{0,30}?(?:打开|开启|配|设|加|建|改|换|接|装|写进)",
    re.IGNORECASE,
)

# The values of a schedule written into a named setting of a file: "已经写进 settings.ts 的
# PRICING：第一小时 38 元，…", "Written into config.py as LATE_FEES: nothing under 15 minutes,
# £5 …" (round 45, b38): where the project's table of values now lives, and what it holds.
_FILE = r"[\w./-]+\.[A-Za-z]{1,5}"
_SETTING = r"`?(?:[A-Z][A-Z0-9_]{2,}|[a-z]+(?:_[a-z0-9]+)+)`?"
VALUES_IN_SETTING = re.compile(
    rf"(?:written|wrote|put|added|saved|stored|recorded|it's|it is|they're|they are|now)"
    rf"\s+(?:it\s+|them\s+)?(?:in|into|to)\s+`?{_FILE}`?(?:'s)?\s+(?:as\s+|under\s+)?{_SETTING}"
    rf"\s*[:：]\s*[^:：]*\d"
    rf"|(?:写进|写到|加到|存到|放到|放进|记到|改到)了?\s*`?{_FILE}`?\s*(?:的|里的?|中的?)\s*{_SETTING}"
    rf"\s*[:：]\s*[^:：]*\d",
    re.IGNORECASE,
)

# A short caution closing a layout ("…, please dont mix them up again", "…. don't confuse the
# two", "…，db 0 别动", "…，别再搞混了"; round 45, b38): it guards the facts before it and
# states no rule of its own beyond them.
CAUTION_TAIL = re.compile(
    r"(?:[,;.]\s+|\s+-+\s+)(?:(?:so|and|but)\s+)?(?:please\s+|pls\s+|plz\s+)?"
    r"(?:don'?t|do not|never)"
    r"\s+(?:(?:mix|muddle|get)\s+(?:them|these|those|the two|the two of them|it)\s+(?:mixed\s+)?up"
    r"|mix up (?:the two|them|these|those)|confuse (?:them|these|those|the two)(?: of them)?"
    r"|touch [\w.:-]+(?: \d+)?|mix them"
    # what guards the thing just placed, said casually ("dont mess with its crontab pls",
    # "don't rename that folder"; round 46, b40)
    r"|(?:mess|muck|fiddle|play) (?:around )?with (?:its|the|that|this|those|these|their|it)\b"
    r"[\w' .:/-]{0,30}?|(?:change|rename|move|edit|delete) (?:its|that|this|those|these|their)"
    r" [\w.:/-]+)(?:\s+again)?(?:,?\s+(?:pls|plz|please|thanks|ok|k))?[.!]*\s*$"
    r"|[，；。]\s*(?:[\w.:-]+(?:\s*\d+)?\s*)?(?:千万|可)?(?:别|不要|不许)(?:再)?(?:搞混|弄混|记混|混了"
    r"|搞错|弄错|动|碰|乱改|乱动|乱挪|改名|挪)了?"
    # ... and the short reason after it (…，路径千万别乱改 玩家存档丢了会骂死我)
    r"(?:[，,\s]\s*[^，。！!；;]{1,20})?[。！!]*\s*$",
    re.IGNORECASE,
)

# What others hold the project to, said by who is held ("We're stuck on Django 4.2 until IT
# moves the server off Python 3.8", 只能停在 PHP 7.4，主机商不给升; round 45, b37): a fact of
# the project, no decision anyone here took.
HELD_BACK = re.compile(
    r"\b(?:we're|we are|I'm|I am|it's|it is|they're|'re|is|are|stays?|remains?)\s+(?:still\s+)?"
    r"(?:stuck|pinned|locked|held back|stranded|trapped)\s+(?:on|to|at|with)\b"
    r"|\bcan(?:'t|not) (?:upgrade|move|go) (?:past|beyond|off)\b"
    r"|卡在|升不了|只能(?:停|留|待)在|被迫(?:用|留在)",
    _I,
)
# A limit an outside body sets, said as its source ("that's the licensing office's rule", "the
# regulations require …", 这是车管所的要求, 按规章…; round 50, b45): a fact of the domain the
# project must follow, no decision anyone here took; it stays a fact however it is phrased.
IMPOSED = re.compile(
    r"\b(?:required|mandated|set|imposed) by (?:law|statute|regulations?|the (?:\w+ )?(?:regulator"
    r"|council|federation|authority|authorities|ministry|government|insurer|inspectorate|office"
    r"|board|licensing \w+))\b"
    r"|\b(?:the )?(?:law|regulations?|regulator|statute|rulebook|by-?laws?|licen[cs]e terms?)"
    r" (?:says?|requires?|demands?|sets?|caps?|limits?)\b"
    r"|\b(?:legal|regulatory|statutory) (?:requirement|limit|minimum|maximum|cap)s?\b"
    r"|\bthat'?s (?:the law|a legal requirement)\b"
    r"|规章|法规|(?:[\u4e00-\u9fff]{0,4}(?:局|厅|署|委|车管所|派出所|部门)|交警|政府|消防|法律"
    r"|国标|行业标准)(?:那边|方面)?的?(?:硬性)?(?:要求|规定|标准)",
    _I,
)
# A decision said as one, which stays a decision whatever it follows ("we're going with gun
# time …, that's what the federation rulebook says").
CHOSEN = re.compile(
    r"\bgoing with\b|\bwe(?:'ll| will|'ve| have)? (?:decided|chose|picked|go with)\b"
    r"|\blet'?s\b|决定|定了|拍板|就用|改用",
    _I,
)
# What keeps going wrong, said as the reason for an order: "staff keep ticking both", "every
# shift someone …", 店员老是两个都勾上, 经常有人…, 动不动就… (round 50, b45 zh-21).
RECURRING = re.compile(
    r"\b(?:keeps?|kept) (?:on )?\w+ing\b|\bevery (?:single )?(?:time|day|week|shift|night)\b"
    r"|\ball the time\b|\bconstantly\b|老是|总是|经常|动不动就?|每次都|老有人|一直有人|天天",
    _I,
)
# The assistant saying the change it reports was the user's call: "per your call", "as you
# decided", "as agreed", 按你说的, 照你定的 (round 50, b45 en-40).
YOUR_CALL = re.compile(
    r"\b(?:(?:as )?per your (?:call|decision|choice|instructions?)|as you (?:decided|asked|wanted"
    r"|chose|requested)|as (?:we )?agreed|following your (?:call|decision))\b"
    r"|(?:按|照|依)(?:你|您)(?:说的|定的|的意思|的决定|的要求|拍板的)",
    _I,
)
# The user ordering a thing of the project gone or changed ("kill the sms reminders", "drop
# the PDF export", 把短信提醒砍掉), and the assistant's sentence reporting it done with what
# holds now ("I've removed the Twilio sender, reminders now go out email-only"; round 45, b37).
# A thing named, "to be changed", then a colon and what it becomes.
RULE_CHANGE_LEAD = (
    r"|^[^，。：:？?\n]{2,16}?(?:改一下|要改一下|要改|改改|调整一下|调一下|换一下)\s*[:：]\s*\S.{4,}"
    r"|^(?:change|update|adjust|tweak|rework) (?:the |our )?[\w -]{2,30}:\s*\S.{6,}"
)
ORDER_TO_CHANGE = re.compile(
    r"^(?:(?:ok(?:ay)?|right|yeah|so|just|pls|please)[,.]?\s+)*(?:kill|drop|remove|ditch|get rid"
    r" of|turn off|switch off|disable|stop|cut|retire|scrap|bin|switch|move|replace|merge"
    r"|combine)\b"
    r"|^(?:那就|就)?把[^，。？?]{2,20}?(?:砍掉|去掉|关掉|停掉|撤掉|删掉|下掉|换成|改成|挪到|合成"
    r"|合并成|合并为|并成|统一成)"
    # a decision of a new way: "签到定了用扫码，不用 GPS 了", "decision: no one-way rentals"
    # (e2e-heldout26 h26c04)
    r"|^[^，。？?]{0,12}?(?:定了|决定)(?:用|改用|换成|走|改成)|^(?:decision|decided)\s*[:：]"
    # "会员积分改一下：平时…，生日当月双倍", "change the loyalty points: …": the rule after the
    # colon is what it becomes (e2e-heldout24 h24x02)
    + RULE_CHANGE_LEAD,
    _I,
)
# ... not how the checks went ("I've removed the debug print, the tests now go green")
ORDER_DONE_CHECKS = re.compile(
    r"\b(?:tests?|suite|build|ci|lint\w*|checks?|pipeline|compiles?|passes|green)\b"
    r"|测试|构建|编译|跑通|通过",
    _I,
)
ORDER_DONE = re.compile(
    r"\bI(?:'ve| have)\s+(?:now\s+)?(?:removed|dropped|turned off|switched off|disabled|killed"
    r"|retired|scrapped|cut|switched|moved|replaced|ripped out|taken out)\b[^.?]*?"
    r"(?:\bnow (?:only )?(?:go|goes|send|sends|use|uses|come|comes|land|lands|show|shows|ship"
    r"|ships|get|gets)\b|\bno longer\b|-only\b|\binstead\b)"
    r"|已(?:经)?把[^。？?]{2,30}?(?:砍掉|去掉|关掉|停掉|撤掉|删掉|下掉|换成|改成|挪到)了?[^。？?]*?"
    r"(?:现在|以后|不再|只)"
    # "已改：会员生日当月消费积分翻倍，其他月份仍是 1 元 1 分", "Updated: points double in the
    # birthday month …": the report opens on the change done and says what holds
    r"|^(?:已改|已调整|已更新|已修改|改好了|调整好了)\s*[:：]\s*\S.{5,}"
    r"|^(?:updated|changed|adjusted|done)\s*[:—-]\s+\S.{10,}"
    # what the thing became, its name first: "签到改成扫轿厢里贴的二维码（…），GPS 只记录不校验"
    # (e2e-heldout26 h26c04)
    r"|^[^，。？?\d]{1,12}?(?:改成|换成|改为|改用)[^。？?\d]{4,}",
    _I,
)

DECISION_RULES = _table(
    {
        # A bound set in a few words: "min 6 photos per check-in", "max 2 bookings per member a
        # weekend", 每单最多 3 张券 (e2e-heldout26 h26g01): the user's rule for the project, said
        # as tersely as a spec line.
        "decision.bound": (
            r"^(?:min(?:imum)?|max(?:imum)?|at least|at most|no more than|up to)\s+\d+(?:\.\d+)?"
            r"\s*[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:per|each|a|every|for each)\s+\w"
            r"|^[^，,。？?\d]{0,10}?(?:每|一)[^，,。？?\d]{1,6}(?:最少|最多|至少|不超过|上限)\s*\d+"
        ),
        "decision.we_decided": (
            r"\b(?:we|the team|team|everyone)\b[^.]{0,30}?\b(?:decided|agreed|settled on|chose"
            r"|standardi[sz]ed on"
            r"|picked"
            r"|opted for|went (?:with|for)|voted|ended up)\b|\bended up (?:going (?:for|with)"
            r"|choosing|picking|using|with|on)\b"
            # "committee voted last night …, the sheet goes read-only on 1 March" (round 45,
            # b37): the body the user answers to settled it
            r"|\b(?:the |our )?(?:committee|board|council|trustees|members|membership|management"
            r"|owners|partners|parents|volunteers|governors|elders|directors)\b[^.?]{0,20}?\b(?:voted"
            r"|decided|agreed|signed off)\b(?! (?:on )?(?:whether|if|what|which|how)\b)"
        ),
        "decision.lets": (
            r"^(?:ok(?:ay)?,?\s+|fine,?\s+)?go (?:with|for)\s+(?!(?:it|that|this|whatever|option"
            r"|plan|the (?:first|second|third|other|last|same)|one|either)\b)\S"
            r"|\blet's\s+(?:go with|use|stick with|stick to|stay (?:on|with)|keep|switch to"
            r"|move to|not|drop|adopt|standardi[sz]e)\b"
            # "Do it at index time then, …": the conclusion of weighing options
            r"|^(?:ok(?:ay)?,?\s+|fine,?\s+)?(?:do it|use|go with|keep|put it|run it|store it)\b"
            r"[^.?!]{2,60}?\bthen\b(?=[,.!]|$)"
            # "pass prediction: switch to skyfield, drop pyephem": a switch that names what goes
            # (e2e-heldout11 h11x01); a bare "switch to the other branch" is a request.
            r"|^(?:[^:.?!]{1,30}:\s*)?(?:switch|move|migrate) (?:\w+ )?to\s+[^,.?!]{1,40},\s*"
            r"(?:and\s+)?(?:drop|ditch|retire|remove|stop using)\s+\S"
        ),
        # "control loop: switch from on/off to PID with simple-pid": a switch that names what
        # goes by "from" (e2e-heldout12 h12c01); moving between branches, files or tabs is
        # navigation, not a decision.
        # "会员积分改一下：平时还是 1 元 1 分，生日当月双倍积分": what a thing of the project
        # becomes, said after the order to change it (e2e-heldout24 h24x02)
        "decision.rule_change": RULE_CHANGE_LEAD[1:],
        "decision.switch_from": (
            r"^(?:[^:.?!]{1,30}:\s*)?(?:switch|move|migrate|change) (?:[\w-]+ ){0,3}?from\s+"
            r"(?!" + _PLACE + r")[^\s,.?!]{1,30}(?: [^\s,.?!]{1,30})? to\s+(?!" + _PLACE + r")"
            r"[^\s,.?!]{2,}"
        ),
        # What a meeting settled, said as its outcome: "outcome of today's sync: the API
        # switches to …", "decision from the design review: …", 今天评审的结论：… (b27).
        "decision.outcome": (
            r"^(?:the )?(?:outcome|result|decision|conclusion|takeaway)s? (?:of|from) (?:today's"
            r"|this week's|the|this|our|yesterday's) [\w' -]{0,20}?(?:sync|meeting|review|call"
            r"|discussion|retro|standup|planning|huddle)\s*[:：]\s*\S"
            r"|^(?:今天|刚才|昨天|本周)?(?:的)?\S{0,6}?(?:会|会议|评审|讨论|周会|例会)(?:上)?(?:的)?"
            r"(?:结论|结果|决定)(?:是)?\s*[:：]\s*\S"
        ),
        # How many of a thing go to whom: "one text per owner listing all their pets, not one
        # per animal" (e2e-heldout19 h19c01), 每户一条，不是每只一条.
        "decision.granularity": (
            r"\bone [\w-]+(?: [\w-]+)? (?:per|for each) [\w-]+\b[^.;]{0,60}?,?\s*(?:and )?not"
            r" (?:one )?(?:per|for each|each)\b"
            r"|每(?:个|位|户|家)?[\u4e00-\u9fff]{1,6}?一(?:条|张|份|个|封)[^，,。]{0,12}[，,]\s*(?:而)?不是每"
        ),
        "decision.going_with": (
            r"\bwe(?:'re| are)\s+going\s+(?:to\s+(?:use|go with|switch|move|keep|drop|adopt|stick)"
            r"|with)\b|\bwe(?:'re| are)\s+(?:sticking with|staying (?:with|on)|moving to"
            r"|keeping|sticking to|switching to"
            r"|standardi[sz]ing on|going with|dropping|migrating to)\b|\b(?:the|our) plan is to\b"
            # "we're pulling the sensors off Ubidots and onto our own InfluxDB box", "we're
            # going back to the front desk tablet" (b35)
            r"|\bwe(?:'re| are)\s+(?:pulling|taking|moving)\b.{0,40}?\boff\b.{0,40}?\bon(?:to)?\b"
            r"|\bwe(?:'re| are)\s+(?:going|switching|moving) back to\b"
            # a thing taken out of the way it is done: "We're taking the nitrox upsell out of the
            # online checkout", "we're pulling the gift cards off the app" (round 49, b43)
            r"|\bwe(?:'re| are)\s+(?:taking|pulling|cutting)\s+(?:the|our|all|every)\b"
            r"[^.;!?]{1,50}?\b(?:out of|off|away from|out)\b"
            r"|\bwe(?:'re| are)? plan(?:ning)? to\b|\bwe(?:'re| are| will|'ll)\s+(?:moving"
            r"|migrating"
            r"|switching|replacing|retiring|deprecating|sunsetting|dropping|adopting|rolling out"
            r"|move"
            r"|migrate|switch|replace|retire|deprecate|sunset|adopt|roll out)\b|\bwe(?:'ve"
            r"| have)?\s+(?:switched|moved|migrated|changed)\b.{0,40}\b(?:from|to)\b"
            # "the brigade moves from the old POCSAG pagers to the Divera 24/7 app on march 1st"
            # (b34): a group the user belongs to, moving over
            r"|\b(?:the|our) (?:[\w-]+ ){0,2}?[\w-]+ (?:moves|switches|migrates|is (?:moving"
            r"|switching|migrating)|goes over) (?:over )?from\b.{2,60}?\bto\b.{2,60}?"
            # ... on a date: a move planned, not a state moving ("the status moves from
            # pending to shipped when the label prints")
            r"\b(?:on|in|by|from|starting|after|next|this)\s+(?:the\s+)?(?:\d|(?:jan|feb|mar|apr"
            r"|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day"
            r"|week|month|year|season|term|spring|summer|autumn|fall|winter|quarter|q[1-4]\b)"
            r"|\bwe(?:'ll"
            r"| will)\s+(?:go with|use|keep|stick with|stay (?:on|with)|switch to|move to|store"
            r"|adopt|drop)\b"
            # "going with 24h and 2h before the shift, …": the subject left out (e2e-heldout10)
            r"|(?:^|[.;!]\s+)(?:(?:ok(?:ay)?|so|fine|alright|then)[,]?\s+)?going (?:with|for)\s+"
            r"(?!(?:it|that|this|the (?:flow|motions))\b)\S"
        ),
        "decision.final": (
            r"^(?:final (?:call|decision)|decision(?: recorded| made)?|decided|verdict|conclusion"
            r"|to summari[sz]e(?: the decision)?|in summary|总结一下(?:决定)?|结论(?:是)?)"
            r"\s*[:,：，—–-]|^决定[:：]"
            # the decision named with its topic: "ok decision on late payers. we stop …" (b43)
            r"|^(?:(?:ok(?:ay)?|so|right)[,]?\s+)?(?:(?:my|our|the|final) )?decision"
            r" (?:on|about|for) (?:the )?[\w' -]{2,40}?[.:：]\s+\S"
            r"|^(?:关于)?[^，。：:]{2,16}?(?:的事|这块|这事)?(?:定了|决定了?)[:：]\s*\S"
            # "再定一条：价格只在下单那一刻锁定…", "再定个事：…", "定个规矩：…" (e2e-heldout17)
            r"|^(?:(?:还有|另外|对了)[，,]?\s*)?再?(?:定|说定)(?:一条|个事|一件事|个规矩|一个规矩"
            r"|条规矩)[:：，,]\s*\S"
            r"|^(?:final (?:call|decision)|decision(?: recorded| made)?|decided|verdict|conclusion"
            r"|agreed)\s*[:,—–-]|^(?:as agreed|as discussed|as decided|per (?:the|our) (?:decision"
            r"|discussion))\b"
            # "Done. Per your call, the v1 endpoints are frozen": the user's decision, carried out
            r"|^(?:per|following|as per) your (?:call|decision|choice)\b"
            r"|^as you (?:decided|chose)\b"
            # "I've moved the sensors from polling to MQTT push, as you decided — …" (round 45,
            # b38): the same, said after the change
            r"|^I(?:'ve| have)\s+[^.;]{4,120}?(?:,|\s+[—–-])\s*(?:as|per) (?:(?:you|we)(?: had)?"
            r" (?:decided|agreed|chose)|agreed|decided|discussed|your (?:call|decision|choice))\b"
        ),
        # Who may do what: "only committee members can book the solar scope", "只有店长能改价
        # 格", and the agent's report of it, "… now need the committee role", "改价接口现在只允许
        # 店长角色调用" (e2e-heldout28 h28g03): a rule of the project, said with no decision word.
        "decision.access": (
            r"^(?:(?:also|and|oh and|btw|plus|note),?\s+)?only\s+(?!one\b|once\b|if\b|when\b)"
            r"(?:the\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}\s+(?:can|may|are allowed to|is allowed"
            r" to|get to|should be able to)\s+(?!be\b)[a-z]"  # ("only the hall can be booked")
            r"|\bnow\s+(?:needs?|requires?)\s+(?:the\s+)?`?[\w-]+`?\s+role\b"
            r"|\b(?:is|are)\s+now\s+restricted\s+to\s+(?:the\s+)?`?[\w-]+`?\s+(?:role|users|members)"
            r"|^(?:(?:另外|还有|对了)[，,]?\s*)?只有[^，。,\s]{1,12}(?:才)?(?:能|可以|有权)"
            r"|现在只(?:允许|让)[^，。,]{1,12}(?:角色|账号|用户)"
        ),
        # A change the team has made, reported as done: "We ripped Sentry out", "we cut over to
        # the new cluster", "Done: the ES 7 -> 8 migration finished", "Sam and I settled it:".
        # Edits to code ("Done: I renamed the helper") are progress, not decisions.
        "decision.done": (
            r"\bwe(?:'ve| have)?\s+(?:ripped|pulled|tore|torn|took)\s+[\w\s.-]{1,30}?\s+out\b"
            r"|\bwe(?:'ve| have)?\s+(?:cut over|cutover|retired|decommissioned|sunset|shut down"
            r"|turned off|killed|dropped)\b|\bwe(?:'ve| have)?\s+(?:moved|migrated|switched)\b"
            r".{0,40}\b(?:onto|over to)\b"
            r"|^done\s*[:：]\s*(?:the\s+)?[^.]{0,60}?\b(?:upgrade|migration|cut-?over|roll-?out"
            r"|switch-?over|failover|move)\b"
            r"|\b(?:and I|we)\s+(?:settled|agreed on|locked in)\s+(?:it|on|that)\b"
            # "shipped 2.4.0 to the app store this morning", "deployed the billing worker to prod
            # last night": a release of a named thing, reported done
            r"|^(?:we(?:'ve| have)?\s+|I(?:'ve| have)?\s+|just\s+|finally\s+)?(?:shipped|released"
            r"|deployed|rolled out|launched|pushed|published)\s+(?:[^.;]{1,60}?\s)?to\s+(?:the\s+)?"
            r"(?:prod(?:uction)?|staging|play store|app store|testflight|pypi|npm|crates\.io"
            r"|customers|all users|everyone|\d+\s?%)\b"
            # "Done: renamed the orders.total column to amount_cents", "Pinned numpy to 1.26.x":
            # a move to a new named state, reported done (the rename of a helper is narration:
            # it says "I renamed")
            r"|^(?:done|finished|completed)\s*[:：.]\s*(?:renamed|migrated|moved|switched|replaced"
            r"|upgraded|downgraded|pinned|ported|converted|bumped|retired)\b(?:[^.]|\.(?=\w)){0,80}?\b(?:to"
            r"|with|onto)\s+\S"
            # "Done: the mobile client is on Expo SDK 52 now": a move to a named version (b28)
            # "Done: the subtitle editor now saves WebVTT instead of SRT": a standing way
            # replaced, reported done (round 40, b29 / b30)
            r"|^(?:done|finished|completed)\s*[:：.]\s*(?=[^.;]*\bnow\b)[^.;]{3,140}?\binstead of"
            r"\s+\S"
            # "Done: the 07:40 sailing is flagged foot_passengers_only until the repair is signed
            # off, so the page no longer offers vehicle tickets" (round 45, b37): what stops
            # happening from now on, reported done
            r"|^(?:done|finished|completed)\s*[:：.]\s*(?!\s|(?:I|we)\b)[^.;]{3,160}?\b(?:no longer"
            r"|not any ?more)\b"
            # "the Saturday class moves to Sunday 9:00, effective from the 1st": a move with the
            # day it takes effect
            r"|\b(?:moves?|moved|changes?|changed|switch(?:es|ed)?|shifts?|shifted) to\b"
            r"[^.;?]{1,40}?"
            r",?\s*(?:effective (?:from|on|as of|next|immediately)|(?:taking|takes) effect)\b"
            r"|^(?:done|finished|completed)\s*[:：.]\s*(?:the\s+)?[^.;]{0,50}?\b(?:is|are|runs?)"
            r" (?:now )?on\s+(?:[A-Za-z][\w.+-]*\s+){1,3}?v?\d+(?:\.\d+)*\b"
            # (said with an "I" after "Done.": "I pinned Pillow to 10.4.0 in requirements.txt:
            # …", round 51, b47)
            r"|^(?:I(?:'ve| have)?\s+)?(?:pinned|upgraded|downgraded|bumped|migrated|ported"
            r"|switched)\s+(?:[^.]|\.(?=\w)){1,60}?\b(?:from\s+\S+(?:\s+\S+)?\s+to|to\s+`?v?\d)"
            r"|^(?:renamed|moved)\s+"
            r"(?:[^.]|\.(?=\w)){1,60}?\b(?:from\s+\S+(?:\s+\S+)?\s+to|to\s+`?v?\d)"
            # a bare "Done: <edit>" is a progress report (the checkpoint's), not a decision
            r"|^(?:summary(?: of (?:this|the) (?:session|change|work))?|recap)\s*[:：]\s*"
            r"(?!(?:I|we)\b)\S|\bcut (?:v?\d+\.\d+\S*|a release|the release)\b"
        ),
        "decision.zh.done": (
            # 好了：…以后不再… / 搞定，…不再…: what stops happening, reported done (round 45)
            r"^(?:好了|搞定|完成|已完成|改好了)\s*[:：，,]\s*[^。？?]{3,80}?(?:以后|从此)?不再"
            # 软笔班挪到周日上午 9:00，下个月 1 号起生效 (round 45, b37): a move with the day it
            # takes effect
            r"|(?:挪到|改到|调到|换到|移到|改成|调整到|换成)[^。；;？?]{1,30}?[，,]?\s*[^。；;？?]{0,12}?"
            r"(?:起|开始)生效|"
            r"已经?(?:正式)?(?:下线|退役|全量|切到|切换到|迁到|迁移到|迁完|切完)"
            r"|^已(?:经)?完成[:：]\s*\S|^(?:这次|本次)?(?:改动|修改|工作)?总结\s*[:：]\s*\S"
            r"|v?\d+\.\d+(?:\.\d+)?\s*(?:已经)?(?:发|上)(?:到)?(?:生产|线上|正式)|已经?接(?:进来|入|上)了"
            r"|我们(?:已经)?把.{1,20}?(?:拆成|合并成|合成|迁到|换成|改成)了?"
            # 已经把民宿房态改成从云掌柜同步了 (b32): a move to a new source, reported done
            r"|^已经?把[^，。]{1,20}?(?:改成|换成|改为)从\s*[^，。]{1,20}?(?:同步|读|拉|取|获取|导入)了"
            # 已经把 PDF 生成从 wkhtmltopdf 换成了 Gotenberg: a way replaced, reported done (b29)
            r"|已(?:经)?把[^，。]{1,30}?从\s*[^，。]{1,30}?(?:换成|改成|切到|切换到|迁到|迁移到|替换成"
            r"|升级到)了?\s*\S"
            # 邮件已经从 SendCloud 换成阿里云了 (round 51, b47): the same, the thing named first
            r"|^[^，。？?]{1,12}?已经?从\s*[^，。]{1,30}?(?:换成|改成|切到|切换到|迁到|迁移到|替换成"
            r"|升级到)了?\s*\S"
            # 已经把两张表的时间字段改成 UTC 存储 (round 51, b46): a way of keeping data replaced,
            # reported done at the start of the sentence
            r"|^已经?把[^，。]{1,40}?(?:改成|换成|改为|统一成|统一改成)(?:了)?\s*(?:按|用|走|存)?"
            r"[^，。]{0,6}?(?:存储?|保存|存成|返回|记录|计算|算)"
            r"|(?:推迟?|延(?:期|后)?|改|定|挪)到\s*[^，。]{1,12}?(?:上线|发布|发版|交付|冻结)"
            # 最低系统版本改成 17 了, 超时调到 30 秒了: a setting changed, reported done
            r"|^[^，。！？?]{2,20}?(?:改成|改为|换成|升到|升级到|调成|调到|降到)了?\s*[A-Za-z0-9][\w.+-]*"
            r"\s*\S{0,3}?了"
        ),
        # A setting given a new number (e2e-heldout12): reported done, by its code name
        # ("已把 MAX_UPLOAD_MB 改成 20", "batch_size 已改成 200"), or asked for by its Chinese
        # name ("订单超时改成 45 分钟吧"). The name is a compact noun (no 的/里/这…: "文档里的例子
        # 改成 5 个" is an edit, not a setting); the memory it retires is found by admission.
        # A way chosen against the other one, in Chinese: "退款直接走微信支付 APIv3 原路退回，不做
        # 余额退款：…" (e2e-heldout15 h15c02), "发货都走顺丰，不走自提"
        "decision.zh.route": (
            r"(?:直接|都|一律|统一|只)?走\s*[^，,。；;]{2,30}[，,]\s*不(?:做|走|支持|接)[^，,。；;]{2,20}"
        ),
        # The other side's decision agreed to and restated as what will be: "Fine by me: props in
        # all four rooms will report to the one Mosquitto broker on the game-master PC." (b33)
        "decision.agreed": (
            r"^(?:fine by me|agreed|good call|sounds good|makes sense|deal|works for me)\s*[:,—–-]"
            r"\s+[^.?!]{3,120}?\b(?:will|'ll|is going to|are going to|goes|go|stays?|from now on)"
            r"\b[^?]*$"
        ),
        # A limit set on what users may do: "members can book 7 days ahead at most, no further"
        # (e2e-heldout16 h16g01), "guests may bring 2 visitors at most"
        "decision.limit": (
            r"\b(?:can|may)\s+(?:only\s+)?[a-z]+(?:\s+[a-z]+){0,3}?\s+\d+\s+[a-z]+"
            r"(?:\s+(?:ahead|in advance|before|early|out))?\s+at (?:most|the most)\b"
        ),
        # A rule of when a kind of job may be done, asked for: "schools only in the school
        # holidays please", "deliveries only after 10am please" (e2e-heldout22 h22g03)
        "decision.only_when": (
            r"^(?:please\s+)?[\w' -]{2,40}?\s+only\s+(?:in|on|at|during|after|before|between"
            r"|from|outside)\s+[^.?!]{2,60}?(?:,?\s*(?:please|pls|from now on))\b"
        ),
        # A gap or margin set around every booking: "15 min reset buffer after every booking,
        # all rooms" (e2e-heldout22 h22x01)
        "decision.buffer": (
            r"^\d+\s*(?:min|mins|minutes?|hours?|hrs?|h|days?|seconds?|secs?)\s+(?:[\w-]+\s+){0,2}?"
            r"(?:buffer|gap|break|margin|cooldown|grace period|window)\s+(?:after|before|between"
            r"|around)\s+(?:every|each|all)\s+\w+"
        ),
        # A way changed, the old one turned down: "工资改成日结，别月结了" (e2e-heldout22 h22c04)
        "decision.zh.switch": (
            # (统一用 X，别再用 Y 了 is a convention, a preference)
            r"^[^，,。？?]{1,12}?(?:改成|改为|换成)\s*[^，,。？?\d]{1,12}[，,]\s*"
            r"(?:别|不要|不用|不再)[^，,。？?]{1,12}?了"
        ),
        # A condition a step waits on: "单独火化必须主人到场确认才能开炉" (e2e-heldout22 h22g02)
        "decision.zh.must_before": (
            r"^[^，,。？?：:]{0,12}?必须[^，,。？?]{2,20}?(?:才能|才可以|才准|之后才|以后才|后才)"
            r"[^，,。？?]{1,12}"
        ),
        # A limit per person, in Chinese: "每个学员一天最多约 2 个时段" (e2e-heldout18 h18c02)
        "decision.zh.limit": (
            r"(?:每个|每位|每名|每人|一个)[^，。,；;]{0,8}?(?:一天|每天|每周|一周|每月|一个月)?[^，。,；;]{0,4}?"
            r"(?:最多|至多|不能超过|不超过)(?:只能)?(?:约|订|预约|买|领|借|下单|提交|报名|上传)?\s*\d+\s*"
            r"(?:个|次|单|件|本|张|份|位|节|场|小时)"
        ),
        # 取餐以后只认刷脸，不收身份证了 (e2e-heldout16 h16x02): from now on only one way, the
        # other dropped
        "decision.zh.only_now": (
            r"(?:以后|今后|从现在起|往后)(?:就)?只(?:认|收|用|走|接受|支持|留)[^，。]{1,12}[，,]\s*"
            r"不(?:再)?(?:收|用|支持|接受|认|走)[^，。]{1,12}?了"
        ),
        # "煎煮时长那个 40 分钟一刀切不行，药师说了：解表药 20 分钟，…": a value turned down, and
        # what holds instead after it (e2e-heldout16 h16c02)
        "decision.zh.value_rejected": (
            r"\d+\s*(?:个|秒|分钟|小时|天|周|次|%|元|位|条|页|人|台)[^，,。？?]{0,8}?(?:不行|不对"
            r"|不合适|不够|太长了?|太短了?|太多了?|太少了?|太慢了?|太快了?|太大了?|太小了?)[，,：:]"
            r"[^？?]{6,}"
        ),
        "decision.zh.setting": (
            r"已(?:经)?把\s*(?:[A-Za-z_][\w.]*|[\u4e00-\u9fff]{2,8})\s*" + _ZH_SET_TO + r"了?\s*\d"
            r"|(?:^|[，,：:；;]\s*)[A-Za-z_][\w.]*\s*(?:已经?|都)" + _ZH_SET_TO + r"了?\s*\d"
            r"|^(?:(?:对了|好|行|嗯|那就?)[，,]?\s*)?(?:把\s*)?[^\s\d，,。！？?的里中这那个把我你他她它]{2,10}"
            + _ZH_SET_TO
            + r"\s*"
            + _NUMBER
            + r"\s*(?:个|秒|分钟|小时|天|周|折|次|倍|%|ms|s|min|h|MB|GB|KB|元|条|页|人|位|台|米"
            r"|字)?"
            # "课时改成 50 分钟一节": the unit's "per lesson" after it (e2e-heldout16 h16g04)
            r"(?:一[节次个份单张课回])?"
            r"\s*(?:吧|了)?(?=[，,。；;！!]|$)"
            # "释放时间也改一下，30 分钟": the setting named, then its new number with a unit;
            # "释放时间已改成预约开始后 30 分钟": reported done, a few words before the number
            r"|^[^\s\d，,。！？?的里中这那个把我你他她它]{2,10}(?:也|都)?(?:改|调)(?:一下|下)[，,]\s*"
            + _NUMBER
            + _ZH_UNIT
            + r"|^[^\s\d，,。！？?的里中这那个把我你他她它]{2,10}已(?:经)?"
            + _ZH_SET_TO
            + r"[^，,。！？?\d]{0,10}?"
            + _NUMBER
            + _ZH_UNIT
        ),
        # A way of working stated against the other one, with its reason next ("official
        # results rank on gun time, not chip time. the association's rules require it";
        # e2e-heldout13): what is done, and what is not.
        "decision.contrast": (
            r"(?<![^.?!\s])[^.?!]{3,80}?\b(?:on|by|in|with|from|use|uses|to)\s+[\w./-]+"
            r"(?:\s+[\w./-]+){0,4}, not\s+[\w./-]+(?:\s+[\w./-]+){0,2}\s*[.;]\s+\S"
        ),
        # The same in English: "Changed batch_size to 200", "MAX_UPLOAD_MB is now 20" (a code
        # name: snake_case or capitals), or asked for with a unit ("make the order timeout 45
        # minutes", "bump the upload limit to 20 MB"); "set the counter to 0" has neither.
        "decision.setting": (
            r"^(?:changed|set|bumped|raised|lowered|increased|reduced|cut)\s+(?:the\s+)?`?"
            + _CODE_NAME
            + r"`?\s+(?:from\s+\S+\s+)?to\s+\d|^`?"
            + _CODE_NAME
            + r"`?\s+is\s+(?:now\s+\d|\d[\d.]*\s*[a-z]*\s+now\b)"
            # "the dedupe window needs to be 30 seconds", "crossfade should be 5 seconds": a
            # setting given its new number with a unit, as what it has to be (e2e-heldout13)
            # "the done rule needs 4 days, not 3": a setting's value said against the old one
            r"|^(?:the\s+|our\s+)?(?:[\w'-]+\s+){0,4}?(?:needs?|takes?|requires?|gets?|should be"
            r"|has to be|must be)\s+" + _NUMBER + r"\s*" + _UNIT + r",?\s+not\s+\d"
            # "max group is 8 now, not 6", "the deposit is now 80": a setting in plain words at
            # its new number, said as now so (e2e-heldout22 h22x01)
            r"|^(?!(?:it|there|this|that|they|he|she|which|what)\b)(?:the\s+|our\s+)?"
            r"(?:[\w'-]+\s+){0,4}?(?:is|are)\s+(?:now\s+\d+(?:\.\d+)?"
            r"|\d+(?:\.\d+)?\s*(?:[a-z%]{1,8}\s+)?now)\b"
            + r"|^(?:the\s+|our\s+)?(?:[\w-]+\s+){0,3}?[\w-]+\s+"
            r"(?:should|needs?\s+to|has\s+to|must)\s+be\s+(?:set\s+to\s+)?"
            + _NUMBER
            + r"\s*"
            + _UNIT
            + r"\b"
            # also after a period typed in lower case ("… eats their battery. make the location
            # ping every 45 s instead of 20", e2e-heldout15)
            r"|(?:^|[.;!?]\s+)(?:[^:.?!]{1,30}:\s*)?(?:make|set|change|bump|raise|lower|increase"
            r"|reduce|cut)\s+"
            r"(?:the\s+|them\s+|it\s+)?(?:[\w-]+\s+){0,3}?(?:to\s+)?"
            + _NUMBER
            + r"\s*"
            + _UNIT
            + r"\b"
        ),
        "decision.zh": (
            # "下学期开始化学实验室领药品不填纸质单了，全在系统里扫码登记" (b35): from a set time on
            r"(?:从)?(?:下学期|下个?月|下周|明年|下季度|下赛季|新学期|开学|年后|节后)(?:开始|起)[^，。]{0,24}?"
            r"(?:不再?|改|全|都|统一|一律)\S|"
            r"我们决定|(?<![再才])决定(?:了)?(?:用|采用|使用|保留|继续|不|把|从|改)|(?<![搞弄])定了|就这么定|拍板"
            r"|最终(?:方案|确定|决定|选择|选)|商量好了|讨论(?:下来|之后|过后|了很久)|达成一致|敲定"
            r"|选定|已确认|那就(?:用|上|按|选)|(?:我们|咱们)就(?:用|按|选)"
            r"|^[^，,。我你他能]{1,12}就用|先不(?:拆|上|做|迁|换|升级|引入|考虑|支持)"
            r"|按(?:照)?(?:约定|之前说的|讨论的)|决定了[:：，,]|定下来|定好了|(?:最后"
            r"|后来)(?:还是)?(?:选|用|定)了?|我们(?:会|将|要|准备)(?:把|从|用|迁|换|替换|下线|废弃"
            r"|切)|(?:我们|团队)(?:已经)?(?:改成|换成|切到|迁到|转向|改用)|(?:我们)?(?:计划"
            r"|打算)(?:在|于)?.{0,12}?(?:下线|上线|迁移|废弃|切换|升级)|(?:已经|都)?不(?:再)?(?:用"
            r"|使用)\s*[A-Za-z][\w.-]*\s*了|不再(?:用|使用)\s*\S+|(?:全部|都|统一|已经)(?:换成|改成"
            r"|迁到|迁移到|切到|换到)|按你说的|那就(?:定|这么)|(?:约|说|讲|商量)好了|约定好"
            r"|(?:最后|最终)还是(?:保留|保持|用|选|留着)|(?:团队|大家)(?:已经)?统一(?:用|使用|了)"
            r"|(?:[一二三四五六七八九十\d]+月份?|下个?月|下周|年底|Q\d)(?:就|会|要)?(?:下线|废弃|停用|上线)"
            r"|我们.{0,10}从.{1,20}(?:换成"
            r"|迁到|迁移到|切到|改成|换到)|还是保持|继续保持"
            # 还是用 X 吧 / 就用 SXSSF 吧: settling on one option
            r"|^那就\s*[A-Za-z][\w.+-]*(?:\s[A-Za-z0-9][\w.+-]*){0,2}\s*吧"
            r"|还是(?:用|改用|选|放|换成|上)[^，,。；]{1,30}吧|就用\s*[A-Za-z][\w.+-]*(?:\s[A-Za-z0-9][\w.+-]*){0,2}\s*吧"
            # 续借规则定一下：每本书最多续借 2 次: a rule set down after "定一下：" (e2e-heldout10)
            r"|(?:定|确定|明确|约定|统一)一下\s*[:：]\s*\S"
        ),
    }
)


# What the user does for a living, as the profile rules read it after "I'm a …" or before
# "… here" (round 44).
OCCUPATION = (
    r"(?:person|generalist|specialist|engineer|developer|dev"
    r"|programmer"
    r"|designer|architect|sre|devops|admin|administrator|maintainer|lead|manager|student"
    r"|researcher|scientist|analyst|founder|cto|consultant|freelancer|contractor|intern"
    # roles outside software engineering proper ("I'm a sysadmin who inherited …", b28)
    r"|hobbyist|owner|sysadmin|sys ?admin|dba|tester|qa|teacher|professor|lecturer"
    r"|technician|operator|physicist|biologist|chemist|statistician|accountant"
    # occupations of users who code on the side ("I'm the finance controller here", b31)
    r"|controller|interpreter|translator|nurse|doctor|physician|pharmacist|lawyer|paralegal"
    r"|clerk|officer|director|editor|writer|journalist|coordinator|organi[sz]er|planner"
    r"|bookkeeper|librarian|electrician|mechanic|farmer|chef|coach|volunteer|vet"
    r"|veterinarian|dentist|pilot|dispatcher|surveyor|paramedic|therapist|economist"
    r"|auditor|actuary|photographer|musician|producer|treasurer|secretary"
    # trades at sea and on the road (round 45, b38)
    r"|captain|skipper|sailor|seafarer|fisherman|deckhand|driver|trucker|courier|carpenter"
    r"|plumber|welder|baker|florist|caretaker|ranger|firefighter)"
)


PROFILE_RULES = _table(
    {
        "profile.role": (
            r"\bI(?:'m| am)\s+(?:mostly |mainly |primarily |basically |more of |kind of |really )?"
            # (a place's own: "I'm the gym's front desk manager")
            r"(?:a|an|the)\s+(?:[\w-]+(?:'s)?\s+){0,4}?" + OCCUPATION + r"s?\b"
            # "piano teacher here, around 30 students", "night-shift nurse here:" (round 44,
            # b36): the user's occupation said as a self-introduction, first thing
            r"|^(?!(?:the|our|my|your|their|his|her|this|that|no|any|every|some)\b)"
            r"(?:(?:just|only) )?(?:an? )?(?:[\w-]+\s+){0,3}?" + OCCUPATION + r"s?\s+here\b"
            r"(?=\s*(?:[,.;:!—–-]|$))"
            # "I'm not a dev by trade", "I am not a programmer": what the user is not shapes
            # every answer as much as what they are
            r"|\bI(?:'m| am) not (?:a|an) (?:[\w-]+ )?(?:dev|developer|programmer|coder"
            r"|software (?:person|engineer|developer)|engineer)\b(?! (?:on|for|of|in) (?:this|the"
            r"|that|your)\b)"
            # "I manage the taproom at a 12-barrel brewery", "I coordinate volunteers at a
            # hospice": a job said with its place of work, not a thing done at a time or rate
            r"|\bI (?:manage|run|coordinate|supervise|oversee)\s+(?:the |a |an |our )?[\w-]+"
            r"(?: [\w-]+)? at (?:a|an) (?![\w -]{0,30}?\b(?:times?|hours?|minutes?|moment|stage"
            r"|rate|level|point|pace|speed|interval|glance|loss|discount|premium|minimum|maximum"
            r"|later|lower|higher|slower|faster)\b)(?:[\w-]+ ){0,3}?[a-z-]{3,}\b"
            r"|\bI lead\b|\bI(?:'m| am) (?:on|in) the [\w-]+ team\b"
            # "i teach high school CS": what the user does, said with the verb (b26)
            r"|\bI (?:teach|tutor|lecture)\b(?! (?:you|him|her|them|myself)\b)"
            # "I'm 68, retired ship's engineer", "I'm a former nurse", "I'm 70 years old"
            # (round 46, b39): a past trade or an age is who the user is, said without "a"
            r"|\bI(?:'m| am) (?:\d{2},? (?:and )?)?(?:a |an )?(?:retired|semi-retired|former|ex-)"
            r"\s?(?:[\w'-]+\s+){0,3}?" + OCCUPATION + r"s?\b"
            r"|\bI(?:'m| am) (?:\d{2}) years old\b"
        ),
        "profile.experience": (
            r"\bI(?:'m| am)\s+(?:pretty |fairly |quite |very |totally |completely "
            r"|relatively )?(?:new to|familiar with|comfortable with|experienced (?:with|in)"
            r"|not familiar with|a beginner)\b|(?:\bI(?:'ve| have)\s+|^)been (?:doing|working"
            r"|writing"
            r"|coding|programming|using)\b.*\b(?:for|since)\b|\bI(?:'m| am) (?:based|located"
            r"|living) in\b|\bI live in\b|\bfor a living\b|\bI studied\b|\bI did (?:a|my) (?:phd"
            r"|masters?|degree|bachelor'?s)\b|\bmy (?:phd|masters?|degree)\b|\bI have a (?:phd"
            r"|masters?|degree)\b"
        ),
        "profile.needs": (
            r"\bI(?:'m| am) (?:[\w/-]+\s+)?(?:colou?r-?blind|dyslexic|deaf|blind|left-handed"
            r"|visually impaired"
            r"|hard of hearing|not a native (?:english )?speaker|a non-native)\b"
            # "English is my second language", "React is new-ish for me": background said of a
            # language or a tool
            r"|\b(?:english|chinese|german|french|spanish|japanese|korean|portuguese)"
            r" is (?:my|not my) (?:second|third|first|native|mother) (?:language|tongue)\b"
            r"|(?:^|[,;]\s*|\b(?:so|but|and|while)\s+)(?!(?:this|that|it|these|those|the|everything"
            r"|all)\b)[\w.+#/-]+(?:\s+[\w.+#/-]+)?\s+(?:is|are)"
            r" (?:(?:still|pretty|fairly|very|quite|kinda|kind of|totally|all) ){0,2}"
            r"new(?:-ish)? (?:to|for) me\b"
            r"|\bI use a screen"
            r" reader\b|我(?:是)?(?:色弱|色盲|红绿色盲|左撇子|读写障碍|视力不好)"
            # 我是听障人士 / 我眼睛不太好 / 我手腕有腱鞘炎: what the agent has to work around
            # (round 40, b29 / b30)
            r"|我(?:是)?(?:听障|视障|弱视|残障|聋人|盲人)|我(?:的)?(?:左|右)?(?:眼睛|视力|听力|手腕|手指|手臂|胳膊"
            r"|肩膀|颈椎|腰|手|眼)(?:不太好|不好|不行|很差|有问题|受过伤|受伤了?|骨折了?|有伤|动不了)"
            # 现在只能右手单手打字 (b34): how the user can type at all
            r"|我?(?:现在|目前|平时)?只能(?:用)?(?:左手|右手|单手|一只手)|单手打字"
            r"|\bI can only (?:type|code|use the keyboard) (?:with )?(?:one hand"
            r"|my (?:left|right) hand)"
            r"|\bI(?:'m| am) (?:typing|coding) (?:with )?one[- ]hand(?:ed)?\b"
            r"|\bmy (?:left |right )?(?:wrist|hand|arm|shoulder|eyes?|eyesight) (?:is|are)"
            r" (?:injured|broken|in a cast|bad|not great|getting worse)\b"
            r"|我(?:的)?(?:英语|英文)(?:不太好|一般|不好|很差)"
        ),
        "profile.languages": (
            r"\bI (?:mostly|mainly|primarily|usually) (?:write|code|work|program)\b|\bI (?:write"
            r"|code|program) (?:mostly|mainly|primarily) (?:in )?[A-Z]\w*|\bmy (?:main"
            r"|primary) language\b"
        ),
        # Background told as a fact of the user's working life, with no "I am a …": "Day to day
        # it's Elixir", "I came over from eight years of C#", "Spent six years writing Perl".
        "profile.background": (
            r"\bday[- ]to[- ]day\b[^.]{0,12}?\b(?:it's|it is|I(?:'m| am)|I (?:write|use|work"
            r"|code))\b|\b(?:came|come|coming|moved) (?:over )?from (?:\w+ ){0,2}years?\b"
            r"|(?:^|\bI(?:'ve| have)?\s+)(?:spent|did|worked) (?:\w+ ){0,2}years (?:of|writing"
            r"|doing|in|as|building|coding|on)\b"
        ),
        "profile.setup": (
            r"\bI (?:work|am working|develop|code)\s+(?:on|with|at|for)\s+(?:a|an|my)\b|\bI(?:'m"
            r"| am) on (?:windows|macos|mac|linux|wsl|ubuntu|arch|fedora|debian)\b"
            r"|\bI(?:'m| am) (?:on|using|running|stuck on|working on) (?:an? |my )?"
            r"(?:[\w-]+ ){0,2}?"
            r"(?:mac\w*|m[1-4](?: \w+)?|thinkpad|laptop|desktop|chromebook|raspberry|pi \d|nixos"
            r"|screen|monitor|display|\d+-inch \w+|keyboard|trackpad"
            r"|wsl2?|windows \d+|intel|amd|arm64|rtx|gpu|\d+\s?gb)\b"
            r"|\bI (?:mostly |mainly |usually |basically )?(?:live|work|code) in (?:vs ?code|vim"
            r"|neovim|emacs|intellij|pycharm|goland|webstorm|xcode|cursor|zed|sublime|helix|jetbrains)\b"
            r"|\bmost of my (?:work|coding|time|development)\b"
            # "everything runs on my M2 Air with 8GB", "my laptop only has 8 GB" (b27)
            r"|\b(?:everything|all of (?:it|this)|all my \w+|I do (?:everything|all my \w+))"
            r" (?:runs? |is |happens )?on my (?:[\w-]+ ){0,3}?(?:mac\w*|m[1-4]|thinkpad|laptop"
            r"|desktop|chromebook|pc|machine|workstation)\b"
            r"|\bmy (?:[\w-]+ ){0,3}?(?:mac\w*|m[1-4]|thinkpad|laptop|desktop|machine"
            r"|workstation) (?:with|has|only has) (?:only )?\d+\s?gb\b"
            # how much time the user has for it: "realistically I get about 40 minutes a night on
            # the ferry app", "I have maybe two hours a week for this" (round 45, b37)
            r"|\bI (?:only |realistically |usually |normally )?(?:get|have|'ve got|got) (?:about "
            r"|around |maybe |roughly |like |only |at most |barely |just )?(?:\d+|an?|one|two|three"
            r"|half an?) (?:minutes?|mins?|hours?|hrs?|evenings?) (?:a|an|per|each|every) (?:night"
            r"|day|evening|week|weekend|morning)\b"
            # when the user can work on it: "I can only get to this after work"
            r"|\bI (?:can )?only (?:get to|work on|look at|have time for)"
            r" (?:it|(?:this|the)(?: \w+)?) (?:after work|in the evenings?|on weekends|at night"
            r"|at weekends"
            # "I only get to it on sunday evenings" (round 44, b36): a day of the week too
            r"|on (?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekday) (?:evenings?|nights?"
            r"|mornings?|afternoons?)|on (?:mon|tues|wednes|thurs|fri|satur|sun)days)\b"
            r"|\bis my (?:editor"
            r"|ide|shell|terminal|os|daily driver|main language)\b"
            # the rights the user lacks on the machine they work on, as 没有管理员权限 (round 45,
            # b38: "…, on which I have no administrator rights")
            r"|\bI (?:have|'ve got|got) no (?:local )?(?:admin(?:istrator)?|root|sudo) (?:rights"
            r"|access|privileges|permissions?)\b|\bI (?:don't|do not) have (?:local )?(?:admin"
            r"(?:istrator)?|root|sudo) (?:rights|access|privileges|permissions?)\b"
        ),
        "profile.my": (
            r"\bmy (?:team|role|job|title|stack|editor|ide|shell|os|machine|laptop|setup|github"
            r"(?: handle| username)?|daily driver|main machine|workstation|dev box|handle|username"
            r"|timezone|time zone|company|day job|background)\b.{0,40}?\b(?:is|are|owns|uses"
            r"|includes"
            r"|was)\b|\bI (?:own|maintain)\s+(?:the|a|this)\b"
        ),
        "profile.zh.role": (
            r"(?:我|本人)是(?!说|不是|在|想|觉得|指|问|的|否)(?:一名|一个|个"
            r"|位)?[^，。,\s]{0,12}(?:工程师|开发|程序员|设计师|架构师|运维|维护者|负责人|学生"
            r"|研究生"
            r"|本科生|博士|产品经理|经理|分析师|科学家|创始人|实习生|新手|全栈|管理员|创业者?|独立开发者?"
            r"|自由职业者?|个人开发者"
            # 我是园里的保健老师，兼职写点代码 (e2e-heldout21 h21c04): occupations outside
            # software, as the English list has them
            r"|老师|教师|助教|班主任|辅导员|护士|医生|大夫|药剂师|兽医|会计|出纳|财务|律师|教练|厨师"
            r"|店长|店主|老板|园长|馆长|站长|行政|文员|前台|销售|客服|编辑|记者|志愿者|社工|技术员|主管"
            r"|干事|司机|农民|翻译"
            # trades at sea, on the road and on the floor (round 45, b38: 远洋渔船上的轮机长)
            r"|轮机长|船长|大副|二副|三副|船员|海员|渔民|机长|空乘|乘务员|飞行员|快递员|外卖员|骑手"
            r"|电工|焊工|木匠|厨师长|护士长|科长|主任|公务员|警察|保安)(?![吗呢吧？?])"
            # 我本职是…, 我的主业是…, 我白天的工作是…: the user's main job, whatever it is (b38)
            r"|我的?(?:本职(?:工作)?|主业|正职|白天的?工作|日常工作)是(?!不是|什么|啥)"
            # 我现在在读研 / 我研二: where the user is in their studies (b26)
            r"|我(?:现在|目前)?(?:还)?在(?:读研|读博|读本科|读大[一二三四]|读研究生|念研究生|上大学)"
            r"|(?:我|本人)(?:现在|目前)?(?:是)?(?:研[一二三]|博[一二三四五]|大[一二三四])(?:在读)?(?=[，,。\s]|$)"
            # 我现在读高二 / 我在上初三: a school pupil (b29)
            r"|我(?:现在|目前)?(?:还)?(?:在)?(?:读|上)(?:高[一二三]|初[一二三]|高中|初中|小学|中专|职高)"
            # 我一个人管后端加运维 / 就我一个人负责 k8s: what the user alone looks after
            r"|(?:就)?我一个人(?:在)?(?:管|负责|维护|带|扛)\S"
            r"|我(?:以前"
            r"|之前"
            r"|原来)?是(?:做|搞|干|写)[^，。,]{1,12}?(?:的|出身)|我在\S{1,12}(?:当|做|担任"
            r"|任)\S{0,6}(?:工程师|负责人|经理|架构师|主管|组长|leader|lead)"
            # 我在殡仪馆管信息这一块 (b32): where the user works and what they look after there
            r"|我在[\u4e00-\u9fff]{2,10}?(?:管|负责|做)[\u4e00-\u9fffA-Za-z]{1,8}?(?:这一?块|这摊|这边)"
            # 我是开驾校的 / 我是开花店的 (round 44, b36): the business the user runs
            r"|我是开(?!玩笑|车|会|心|完|始|发|通|着|过|了|的)[\u4e00-\u9fff]{1,6}?的"
            # 我一个人开花店 / 我自己开了家民宿 (round 46, b39): the business, without 是…的
            r"|^(?:我|本人)(?:自己|一个人)?开了?(?:一?家|个)?[\u4e00-\u9fff]{1,6}?(?:店|馆|诊所|工作室"
            r"|驾校|农场|民宿|餐厅|饭馆|小卖部|超市|作坊)(?=[，,。\s]|$)"
            # 我们是两口子在大理开的民宿 / 我们夫妻俩开了家面馆 (round 50, b45 zh-32): the business
            # the user runs with family, said as "we"
            r"|^我们(?:是|家是|俩是)?(?:两口子|夫妻俩?|一家人|一家子|两个人|兄弟俩|姐妹俩|母女俩|父子俩"
            r"|母子俩|父女俩)(?:一起)?(?:在[\u4e00-\u9fff]{1,6}?)?开(?:了)?(?:一?家|个)?的?"
            r"[\u4e00-\u9fff]{0,6}?(?:店|馆|诊所|工作室|驾校|农场|民宿|餐厅|饭馆|小卖部|超市|作坊|客栈"
            r"|酒馆)(?=[，,。\s]|$)"
            r"|我(?:已经)?退休(?:前是|之前是|了)"
            # 我不是程序员 / 我是开驾校的，不是程序员: what the user is not shapes every answer
            r"|我[^。！？!?]{0,20}?不是(?:专业的?)?(?:程序员|码农|开发|搞技术的|做技术的|技术人员"
            r"|干这行的|学计算机的)(?![写做弄改搞出])"
        ),
        "profile.zh.setup": (
            r"我(?:这边|这里|本地|自己)(?:是|用的是)\s*(?:windows|mac|macos|macbook|linux|wsl2?|ubuntu"
            r"|arch|fedora|debian)"
            # the network the user works in: 我这边是纯内网环境, 我这里只能走公司代理 (b28)
            r"|我(?:这边|这里|本地|们这边|的(?:电脑|机器|开发机))(?:是|在)?(?:纯|完全)?(?:内网|离线|隔离网|局域网"
            r"|断网)(?:环境)?|我(?:这边|这里|本地)[^，。]{0,8}?(?:只能|必须|得)(?:走|通过|挂)\S{0,4}代理"
            r"|我(?:这边|这里|本地)(?:访问|连|上)不了外网"
        ),
        # The network the user works in: "I'm behind a corporate proxy", "my box is air-gapped",
        # "no internet on my machine" (b28's 内网环境, in English)
        "profile.network": (
            r"\bI(?:'m| am) (?:stuck )?behind (?:a|the|our|my company's) (?:\w+ )?"
            r"(?:proxy|firewall)|\b(?:my|our) (?:[\w-]+ )?(?:machine|box|network|laptop|workstation"
            r"|environment|setup)"
            r" (?:is|are) (?:fully |completely )?(?:air-?gapped|offline|isolated)\b"
            r"|\bI(?:'m| am) (?:on|in) an? (?:air-?gapped|offline|isolated) (?:network|environment"
            r"|machine|box)\b|\bno (?:internet|outside network) (?:access )?(?:on|from) my\b"
        ),
        "profile.zh.work": (
            r"(?:我|本人)(?:现在|目前)?(?:在|就职于)\S{0,4}?(?:一家|一个)|我是(?:自学|半路)?转行|我(?:自己|一个人)(?:在)?(?:创业|做产品|开公司)"
            r"|我是一个人(?:创业|做|开发|维护)|我(?:本科|硕士|博士"
            r"|研究生)?(?:学的是|读的是|专业是)|我(?:本科|硕士|博士|研究生|大学)(?:学|读)的\S"
            r"|我(?:主要|平时|日常|一般|目前)?负责|(?:我"
            r"|本人)(?:主要|平时|日常|一般|目前)(?:主要|基本上?|都|一般)*(?:写|用|做|在|搞)"
            # 我前年就转后端了 / 我去年从测试转到开发了: a change of role
            r"|我[^，。把将]{0,6}?(?:转(?:行|岗)?(?:到|做|去)?|转到)\s*(?:前端|后端|全栈|客户端"
            r"|移动端|开发|测试|运维|产品|管理|数据|算法|嵌入式|[A-Za-z]{2,})|(?:^|[，,]\s*)(?:我|本人)?(?:之前|以前)?"
            r"(?:做|写|干"
            r"|用)了\S{1,4}年|我(?:人在|住在)|我(?:在|人在)\S{2,6}(?:工作|生活|上班)|时区是"
            r"|我对.{1,20}(?:不太熟|不熟|很熟|比较熟|熟悉|了解|不了解|是新手)|我的(?:电脑|开发机"
            r"|笔记本|系统|编辑器|ide|终端|shell|职位|岗位|工作|技术栈|github)(?:是|用的是)"
            r"|^我(?:做|写|干|搞|用)[^，。]{1,10}?(?:[一二三四五六七八九十两几多\d]+)年"
            r"|我(?:的)?(?:屏幕|显示器)|我(?:用的是|的电脑是|在用|用)\s*\S{0,6}?(?:windows|mac|macbook|linux|wsl|ubuntu|m[1-4]"
            r"|thinkpad|电脑|笔记本|台式机)|(?:我|本人)?没有(?:管理员|root|sudo|admin)\s*权限"
            # 我刚从 Java 转 Go 三个月: a move between languages or roles (b27)
            r"|我\S{0,3}从\s*[^，。\s]{1,12}\s*转(?:行|岗)?(?:到|做|去)?\s*(?:前端|后端|全栈|客户端"
            r"|移动端|开发|测试|运维|产品|管理|数据|算法|嵌入式|[A-Za-z]{2,})"
            # 我只能下班后弄 / 我一般周末才有空: when the user can work on it (b27)
            r"|我(?:只能|只有|一般|通常|平时|基本)(?:都)?(?:在)?(?:下班后|下班以后|晚上|周末|早上|白天"
            r"|午休)(?:才)?(?:能)?(?:弄|搞|写|看|做|回|在线|有空|有时间)"
            # 我每天晚上也就半小时能弄 (round 45, b37): how much time, not only when
            r"|我?(?:每天|每晚|每周|一周|一天|晚上|周末)(?:晚上)?(?:大概|大约|也就|只有|就|最多|顶多|差不多)*\s*"
            r"(?:\d+|半|一|两|[一二三四五六七八九十]+)\s*(?:个)?(?:分钟|小时|钟头|个钟)(?:左右)?(?:能|可以)?"
            r"(?:弄|搞|写|做|看|用来|花在|折腾)"
            # 白天我要看店，代码只能晚上十点以后弄 (round 44, b36): the hour said with it
            r"|(?:我|代码)(?:只能|只有)(?:等到|在|等)?(?:下班|晚上|周末|夜里|半夜|凌晨|早上|午休)"
            r"[^，。；]{0,8}?(?:才)?(?:能)?(?:弄|搞|写|看|做|回|改)"
        ),
    }
)


# Casual spellings of the contractions the rule tables read (`heuristics._casual`): "dont",
# "id rather", "im". Only forms that are no other word ("id" alone may be an identifier).
CONTRACTIONS = {
    "dont": "don't",
    "doesnt": "doesn't",
    "cant": "can't",
    "wont": "won't",
    "shouldnt": "shouldn't",
    "im": "I'm",
    "ive": "I've",
    "id": "I'd",
}
UNCONTRACTED = re.compile(
    r"\b(?:dont|doesnt|cant|wont|shouldnt|im|ive)\b|\bid(?= (?:rather|prefer|like|love))", _I
)
# What may come before a rule without changing it: a scope ("in this repo", "for this
# codebase:"), an aside ("btw", "honestly", "fyi", "also", "oh and"), a politeness word.
CASUAL_LEAD = re.compile(
    r"^(?:(?:btw|by the way|honestly|fyi|also|oh and|and|ok(?:ay)?|one more thing|heads up"
    r"|ugh|tbh)\b[,:—–-]?\s*"
    # an approval before the rule: "sure, go ahead with the refactor, and keep …" (b28)
    r"|(?:(?:sure|ok(?:ay)?|yes|yep|yeah|fine)[,!.]?\s+)?(?:go ahead|do it|go for it|sounds good)"
    r"(?: with [^,;.]{1,40})?[,;]?\s+(?:and|but)\s+)*"
    r"(?:(?:in|for|on|across) (?:this|the|our) (?:repo|repository|project"
    r"|codebase|code base|monorepo|service|app)\b[,:—–-]?\s*"
    # a part of the code named first: "in the Elixir code, …", "for the API handlers: …" (b28)
    r"|(?:in|for|inside|within|across) (?:the |our |this |any |all |new )?[\w.+#/-]+"
    r"(?: [\w.+#/-]+){0,3}? (?:code|codebase|tests?|test suite|suite|files?|modules?|services?"
    r"|components?|scripts?"
    r"|handlers?|frontend|backend|package|app|api|migrations?|templates?|notebooks?|crates?)"
    r"\s*[,:—–-]\s*)?(?:(?:pls|please|plz)\b[,]?\s*)?",
    _I,
)
# "Can you stop putting a comment above every command?", "could you quit adding emojis": a
# request in question form that asks for a standing change in how the agent works.
STOP_ASK = re.compile(
    r"^(?:can|could|would|will) you (?:please |pls )?(?:stop|quit)\s+(?:\w+ing)\b", _I
)

# A tool kept out of this project: "No ORM in this one.", "No Tailwind here." (round 45, b38);
# the next sentence may say what does instead (`heuristics._instead_follows`).
_KEPT_OUT = (
    r"^no\s+(?-i:[A-Z][\w.+-]*|[a-z]+[A-Z][\w.+-]*)(?:\s+(?-i:[A-Z][\w.+-]*))?\s+"
    r"(?:here|in here|in this one|in this (?:project|repo|codebase|app))\s*(?:[.,;!]|$)"
)
KEPT_OUT = re.compile(_KEPT_OUT, _I)

PREFERENCE_RULES = _table(
    {
        "preference.always_never": (
            # (after a lead that sets its scope: "in general, for all my stuff: never …")
            # (never a task's own lead: "add a max ramp guard: never heat faster than …")
            r"^(?:[^:：.!?]{0,30}\b(?:all|every|any|general|global|globally|everything)\b"
            r"[^:：.!?]{0,20}[:：]\s*)?(?:please\s+)?(?:always|never)\s+(?!mind\b)\w+"
            r"|\b(?:you|we)\s+should\s+(?:always"
            r"|never)\b(?! have \w+(?:ed|en|wn|ne)\b)"  # not "should never have shipped" (regret)
            r"|\bI\s+(?:always|never|usually)\s+(?:use|want|prefer|write|go with|work with"
            r"|put|like|keep)\b"
        ),
        # "dates as dd/mm/yyyy anywhere the members see them", "weights in grams everywhere"
        # (round 46, b39): how a kind of value is written, said with no verb; the place it
        # holds in makes it a convention, not a task.
        "preference.convention": (
            r"^(?!(?:i|we|you|he|she|they|it|that|this|there)\b)(?:all |every |any )?"
            r"(?:[\w-]+ ){0,2}?"
            r"[\w-]+s (?:as|in) [^\s,.;]+(?: [^\s,.;]+){0,2}? (?:anywhere|everywhere|wherever"
            r"|throughout)\b"
        ),
        "preference.dont": (
            r"(?<!\bwe )(?<!\bwe've )\b(?:don't|do not|never)\s+(?:ever\s+)?(?:use|add|write|put"
            r"|include|introduce|pull in"
            r"|leave|commit|push|force-push|install|import|hardcode|hard-code|mock|generate)\b"
            r"|^(?:please\s+)?(?:don't|do not)\s+(?!worry|know|think|mind|care|get|see|understand"
            r"|have|need|want|feel|sweat|bother(?! with))\w+"
            # "no pie charts, ever", also after the place it holds for ("in the Kotlin bits, no
            # `!!` please", "for the charts in the monthly report: no …", b31).
            r"|^(?:(?:in|for|on) [^,:;]{1,50}?[,:]\s+)?no\s+(?:more\s+)?[\w\s`!?.-]{2,40}?,?\s+"
            r"(?:ever|anywhere|at all|please)\b|^no more\s+\w+"
            # "in the Go services, no bare `go func()` calls." (b32): the place says it is a rule
            r"|^(?:in|for|on) (?:the |our |all )?[^,:;]{1,50}?[,:]\s+no\s+[^.;,]{2,40}?(?:[.;]|$)"
            # the place after it: "no ORMs in the reporting service pls" (b33), "no mocks in
            # the integration tests, they hit the real db"
            # not a lack the user lives with: "no admin rights on the windows side", "no root
            # access on the shared box" (b36) state a constraint, not a rule for the agent
            r"|^no\s+(?!(?:[\w-]+\s+)?(?:rights|access|permissions?|privileges|sudo)\b)"
            r"(?!(?:the|it|that|this|we|you|i|not|no|but|one|way|idea|problem|worries"
            r"|luck|need|rush|change|changes|clue|reply|response|longer|errors?|warnings?|issues?"
            r"|problems?|failures?|crash(?:es)?|results?|output|data|hits|matches|difference"
            r"|rows|records|entries|sign|trace|mention)\b)[\w`.-]+(?:\s+[\w`.-]+)?\s+"
            r"(?:in|on|for|inside|anywhere in)\s+(?!this\s+(?:pr|commit|branch|change|time|one"
            r"|round|release|ticket|session|run)\b|(?:now|today|the moment)\b)"
            r"(?:the\s+|our\s+|this\s+|any\s+|my\s+)?[\w./`-]+"
            r"(?:\s+[\w./`-]+){0,3}?\s*(?:,?\s*(?:pls|please|ever|thanks)\b|[.;,]|$)"
            r"|^(?:please|pls)\s+(?:use|avoid|write|prefer|stick)\b|\bI'd take\b.*\bover\b"
            # "transcript exports must never reflow: …" (b34): what may never happen to a thing
            r"|^(?!(?:i|we|you|he|she|they|it|that|this)\b)(?:the |our |all |any )?"
            r"(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:must|should|may)\s+never(?!\s+have\b)"
            r"\s+(?:be\s+|get\s+)?\w+"
            # "in the migration files it's one statement per file pls, don't bundle five ALTERs
            # together" (b34): a way asked for, then what not to do instead
            r"|^[^.;:?]{3,80}?\b(?:pls|please),\s+(?:and\s+)?(?:don't|do not|never)\s+(?!worry|know"
            r"|think|mind|care|get|see|understand|have|need|want|feel|sweat|bother|ask|forget)\w+"
        ),
        "preference.like": (
            r"\bI(?:'m| am)?\s*(?:really\s+|truly\s+|strongly\s+)?(?:like|love|prefer|hate|dislike"
            r"|can't stand|cannot stand|don't like|do not like|(?:a\s+(?:big\s+|huge\s+)?)?fan of"
            r"|not a fan of)\s+(?!(?:this|that|it(?!\s+(?:when|if)\b)|these|those|whatever"
            r"|the first one|the second one|how|what)\b)\w"
        ),
        "preference.prefer": (
            r"\b(?:my preference|prefer(?:red)?|rather than)\b|\bI(?:'d| would)\s+(?:much\s+|far\s+"
            r"|really\s+)?rather\b|\bI(?: (?:want|need|expect)|(?:'d| would) like)\s+(?:every|all"
            r"|each|any)\b|\bI(?:'d"
            r"| would) like (?:you to|answers|responses|explanations|replies|code|examples)\b"
            r"|\bI want (?:you to|answers|responses|explanations)\b"
            r"|我希望(?:你|回答|代码|回复|每个|所有|都)"
            r"|最好(?:都)?(?:带上|附上|加上|用|写|带)"
        ),
        "preference.use_not": (
            r"(?:^(?:please\s+)?|\b(?:we|I)\s+)(?:use|stick (?:to|with)|switch to"
            r"|go with)\s+\S+.*\b(?:not|instead of|over|rather than)\b"
        ),
        "preference.default": (
            r"\b(?:default to|by default|from now on|going forward|moving forward"
            r"|in (?:the )?future|for (?:anything|everything|all) new|in new code|for new code"
            r"|from here on|whenever (?:you|we|I)|where(?:ever)? (?:you can|possible)"
            r"|whenever possible|when(?:ever)? you can|as much as possible"
            r"|for (?:all|every one of|each of) (?:my|our) (?:projects|repos|repositories|code)"
            r"|in (?:all|every|any) (?:of )?(?:my |our )?(?:projects?|repos?|repositories))\b"
            r"|^(?:please\s+)?stick (?:to|with)\b"
        ),
        "preference.keep": (
            r"^(?:please\s+)?(?:always\s+)?keep\s+(?:the\s+|our\s+|your\s+|all\s+)?[\w\s-]{1,30}?\s+"
            r"(?:backwards?[- ]compatible|stable|sorted|alphabeti[sz]ed|in sync|up to date|pinned"
            r"|under \d+|below \d+|green|typed|documented|lower-?case|upper-?case|ascii)\b"
        ),
        "preference.retain": _RETENTION,
        # House rules said as plain facts: "keep barrel files out of the frontend", "SQL you
        # hand me should be lowercase", "dataclasses only, no pydantic models".
        "preference.keep_out": (
            r"(?:^(?:in|for|on) [^,]{1,40}?,?\s+|^)(?:please\s+)?keep\s+(?!(?:the|this|that|it"
            r"|them|going|up|on|in)\b)[\w\s./+-]{1,40}?\s+(?:out|free|clear)\s+of\b"
        ),
        "preference.for_me": (
            r"\b(?:you (?:hand|give|send|write|show|generate|paste) me|you write for me)\b.{0,40}?"
            r"\b(?:should|must|needs? to|needs|has to|have to|always)\b"
            # "whatever you generate for the overdue notices: one A5 page max, 14pt minimum" (b35)
            r"|^(?:whatever|anything|everything) (?:you|u) (?:generate|write|make|produce|print"
            r"|render|send)\b[^:：]{0,60}[:：]\s*\S"
            # "when you write SQL for me put the keywords in lowercase", "when I ask for status
            # just give me short bullets" (round 51, b46): what the agent hands the user, and
            # how, with no comma between (after a lead: "small thing but it bugs me: when …")
            rf"|{_AGENT_HANDS_ME}[^,.;]{{0,40}}?,?\s+(?:(?:just|please|pls|always)\s+)*"
            r"(?:put|use|write|keep|make|give|send|show|format|name|leave|answer|reply|stick|add"
            r"|include|list|skip|start|lead|end|number|quote|pin|avoid|prefer|wrap|sort|split"
            r"|mark|explain|link|cite|indent|order|drop|stop|return|limit|cap)\b"
        ),
        # A house rule given as a spec: "Swiss invoices: apostrophe for thousands, 1'250.00, not
        # a comma", "app store release notes: plain words, no version number …, and never …"
        # (b32). A diagnosis or a correction said the same way is not one.
        "preference.spec": (
            r"^(?!(?:root cause|the cause|cause|fix|the fix|correction|update|note|error|problem"
            r"|issue|done|status|result|todo|context|background|why|reason|found it|turns out"
            r"|edit|ps|fyi|heads up)\b)[\w\s'-]{3,40}:\s+(?![^,]*\b(?:is|are|was|were)\b)"
            r"(?:[^.:]|\.(?=\d)){2,80}?,\s+(?:and\s+)?(?:not|no|never)\s+\S"
        ),
        # A rule announced as one: "hard rule: 25 numbered lines per page, …" (e2e-heldout18
        # h18x01), "house rule: …", 硬性规定：…
        "preference.house_rule": (
            r"^(?:(?:one|a|the|our|my)\s+)?(?:house|hard|strict|golden|firm|big|non-negotiable"
            # "new rule: a bird doesn't fly a display if …" (e2e-heldout22 h22c01)
            r"|iron|new|another|one more|business|safety)\s+rules?(?:\s+here)?\s*[:：]\s*\S"
            # ("规则定死：线上只能提交申请，…": e2e-heldout30 h30g02)
            r"|^(?:硬性|铁|新)?(?:规矩|规定|铁律|规则)(?:定死|定好|说死|说好|不变)?(?:了)?\s*[:：]\s*\S"
        ),
        # A naming convention: "branch names: ticket number first then a slug, like 482-…"
        # (b33), "commit messages: imperative, under 60 chars", "test file names: …_test.go"
        "preference.naming": (
            r"^(?:our\s+|the\s+)?(?:branch|commit|file|tag|table|column|variable|test(?: file)?"
            r"|image|bucket|release|migration|env(?:ironment)? var(?:iable)?|topic|queue|route"
            r"|endpoint|component|class|function|method|key|metric|log)s?\s+(?:names?|naming"
            r"|messages?|titles?|subjects?|prefix(?:es)?)\s*[:：]\s*\S"
            r"|^(?:分支|提交信息|提交|文件|表|字段|变量|标签|镜像|接口|路由|组件)(?:名|命名|名称|信息)?"
            r"(?:规则|规范|格式)\s*[:：]\s*\S"
        ),
        # what holds for everything of a kind: "anything the nurses see in the hospice app: 18px
        # minimum body text and nothing lighter than #555 for greys" (b33)
        "preference.scope_rule": (
            r"^(?:anything|everything|all|any|every)\s[^:：]{3,60}[:：]\s+[^.]*?\b(?:minimum|maximum"
            r"|at least|at most|no more than|no less than|nothing (?:lighter|smaller|bigger|larger"
            r"|longer|shorter|darker|less|more|under|over)|never|always|only)\b"
            # "anything customers see should show prices with VAT, never without" (round 44,
            # b36): what everything a kind of reader sees must look like
            r"|^(?:anything|everything|whatever)\s+(?:the\s+|our\s+)?(?:[\w-]+\s+){1,2}?(?:sees?"
            r"|gets?|reads?|receives?|opens?|prints?)\b[^.:：]{0,40}?\b(?:should|must|has to"
            r"|needs? to)\s+(?:be|have|show|use|say|read|look|stay|come)\b"
        ),
        # How every value of a kind is kept: "store all monetary amounts as integer pence",
        # "save every export as UTF-8 with a BOM", 所有金额都按分存整数 (round 45, b38).
        # (and "amounts: store them as whole pence please": what "them" are is the label's,
        # e2e-heldout29 h29g01)
        "preference.every": (
            r"^(?:[^:.?!]{1,30}:\s*)?(?:(?:please|pls)\s+)?(?:always\s+)?(?:store|keep|save|record"
            r"|log|write|format|round|represent|express|hold|encode|serve)\s+(?:(?:all|every|each"
            r"|any)\s+(?!of\b)(?:[\w-]+\s+){0,3}?[\w-]+|them)\s+(?:as|in)\s+(?!(?:the|this|that|my"
            r"|our|a|one|here|there|it)\b)\S"
            r"|(?:所有|全部|每一?笔|每条|每个)(?:的)?[\u4e00-\u9fff\w]{1,10}?(?:都|一律|统一)?(?:按|以)"
            r"[^，。]{1,10}?(?:存|记|保存|存储)"
        ),
        "preference.kept_out": _KEPT_OUT,
        "preference.only": (
            r"^(?!only\b)[\w\s+/.-]{2,40}?\s+only\s*[,;:—–-]\s*(?:no|nothing|never)\b"
        ),
        # "class components are banned here", "no raw SQL allowed in handlers", "No changelog
        # entries for typo fixes, only for …": a house rule said as what is not allowed.
        "preference.not_allowed": (
            r"\b(?:is|are) (?:banned|forbidden|not allowed|off[- ]limits|a no-go)\b"
            r"|^no\s+[\w\s./-]{2,40}?\s+(?:allowed|permitted)\b"
            r"|^no\s+[\w\s./-]{2,40}?\s+(?:for|in|on|under)\s+[^,;]{2,40}[,;]\s*only\b"
        ),
        # "uv, not pip.": a tool chosen over another, said as a bare contrast.
        "preference.tool_not": rf"^{_TOOL},\s*not\s+{_TOOL}",
        # "stop sprinkling `# type: ignore` around": whatever the agent keeps doing (b28)
        "preference.stop": (
            r"^(?:please\s+)?(?:stop|quit)\s+(?!(?:working|being|everything|anything|nothing"
            r"|thing)\b)[a-z]{3,}ing\b"
        ),
        # A rule given as the house way: "keep plain asserts like the rest of the suite",
        # "name them the way the rest of the API does", "none of that getter/setter stuff" (b28).
        "preference.house_way": (
            r"^(?:please\s+)?(?:keep|use|write|stick (?:to|with)|follow|stay with|match|name|format"
            r"|structure|do)\b[^.;?]{1,60}?\b(?:like|as in|same as|consistent with"
            r"|the (?:same )?way) (?:in )?the rest of\b"
            r"|\bnone of (?:that|those|this|the) [^,.;?]{1,40}? (?:stuff|nonsense|junk|business"
            r"|crap|magic)\b"
            r"|(?:跟|和|与|照)(?:其他|别的|其余|现有的?|已有的?)[^，。]{0,10}?(?:保持一致|一个风格|一样写"
            r"|一样来)"
        ),
        "preference.answers": (
            r"^(?:please\s+)?keep\s+(?:your\s+|the\s+)?(?:answers?|responses?|replies|explanations?"
            r"|messages?|commits?|prs?|functions?|it|them|things|code)\s+(?:short|concise|brief"
            r"|small"
            r"|focused|simple|minimal|terse|tight)\b|\b(?:reply|respond|answer|talk|write"
            r"|speak)(?: to me)? in (?:english|chinese|japanese|german|french|spanish)\b"
        ),
        "preference.style": rf"^(?=.{{0,50}}?(?:{STYLE_TOPIC}))(?=.*(?:{STYLE_DIRECTIVE}))",
        # "i changed my mind on indentation — 2 spaces for yaml": a style rule, restated (b26)
        "preference.changed_mind": (
            rf"\b(?:changed my mind|change of heart) (?:on|about) (?:the )?(?:{STYLE_TOPIC})\b"
            r"\s*[—–:,-]+\s*\S"
        ),
        "preference.zh.always": (
            # a kind of thing and how it goes from now on: "删除这种操作别弹确认框了，改成 toast
            # 里带个“撤销”按钮" (b33)
            r"^[^，。]{1,10}?(?:这种|这类|此类|这一类)(?:操作|情况|场景|页面|弹窗|提示|按钮|请求|消息"
            r"|通知|数据|文件)[^，。]{0,3}?(?:都|一律|统一|就)?(?:别|不要|不用|改成|改用|走|用)\S|一律|统一(?!(?:装|发|配|买|采购|安装|分配)的)(?:用|使用|交给|成|为|写成)?|全部(?:用|使用)|都(?:用|使用)(?!过)|永远"
            r"|总是(?!搞混|搞错|弄错|弄混|忘|记不|分不清|想不起)"
            r"|一直(?:都)?(?:用|使用)|从来不(?:用|写|装)|宁愿|宁可|尽量(?!了)\S|能(?:用|不用"
            r"|少)\S{0,12}就(?:用|不用|少|别)|\S都(?:要|得|必须)(?:写|加|用|带|有)"
            # "账单页的金额都加千分位" (e2e-heldout19 h19x02): what every one of a kind gets
            r"|\S都加(?:上)?(?![了过])(?![^，。]*了\s*[。！!]?$)\S"
            r"|\S都(?:显示|展示|格式化|渲染)(?:成|为)"  # 页面上的时间都显示成“3 分钟前” (b31)
            r"|\S(?:在页面上|页面上|界面上)?只(?:露|显示|展示)(?:前|后)"  # 身份证号只露前三位 (b32)
            # "按钮别光写“确定”，写清楚要干啥" (b35): not only this, say that
            r"|别(?:光|只|老)(?:写|用|给|放|显示|提示)\S"
            r"|(?:不用|不需要"
            r"|别)(?:管|考虑|支持)(?!它|这|那)|(?:以后|今后|往后|从现在开始|从今以后)(?:都|一律"
            r"|统一"
            r"|全部|请|就|也)?(?:用|别|不要|不用|使用|写|给|交给|改用|换成)"
            r"|^用\s*\S+\s*[，,]\s*(?:不用|别用|不要用)|用\s*\S{1,10}[，,]\s*(?:别|不要|不用)\S"
            r"|(?:以后|今后|往后|从现在开始|从今以后)[^，。]{1,16}?都(?:给我|要|得|用|加|写|带)"
            r"|(?:所有|每个|任何)(?:的)?(?:项目|仓库|代码库)(?:都|里|中|一样|通用)"
        ),
        # 新写的接口我都写成 async 的: the user's own habit, stated before any "不再用 X" that
        # would read as a team decision.
        # 我一般不让 ORM 自动建表 / 我向来只用 pnpm: the user's habit said as what they never or
        # only do (b28)
        "preference.zh.i_write": (
            r"我(?:一般|平时)?(?:都|一律|统一)(?:写成|做成|用)(?!过|了)"
            r"|我(?:一般|平时|通常|向来|一向|从来|基本)(?:都)?(?:不让|不用|不写|不开|不装|不引入?|不加"
            r"|不碰|只用|只写|只装|只让)(?!过|了)\s*\S"
        ),
        "preference.zh.like": (
            # 我们的习惯是…: the team's way of working, a workflow (round 40, b29)
            r"(?<!我们的)(?<!团队的)(?<!组里的)"
            r"(?:很|比较|更|最|特别|真的|不太|不|挺)?(?:喜欢|讨厌|偏好|偏向|倾向于?|受不了"
            r"|习惯(?:用"
            r"|于|写)?|不想(?:引入|用|要|看到))"
            rf"(?!{DEICTIC_ZH})(?=\s*(?:用|使用)?\s*[\w\u4e00-\u9fff]{{2}})"
        ),
        # 别再给我包 try/except 了, 不要再给我加注释: what the agent keeps doing, forbidden
        "preference.zh.stop_doing": (
            r"(?:别|不要|不许|不准)(?:再给我|给我再|再|给我)[^，。！!？?]{4,}"
        ),
        # 提交 notebook 时请清掉输出: an instruction tied to an event, said for every time
        "preference.zh.when_asked": r"(?:时|的时候|之前|以前)[，,]?\s*请(?!问|教)\S",
        "preference.zh.dont": (
            r"(?<![先暂要])(?:不要|别|禁止|千万别|不许|不准|绝对不能|千万不能|不允许|不可以)(?:再|给我|在(?!这|那)[^，。]{1,8}?|顺手|随便"
            r"|乱|总是|老是|每次|直接|一上来就?|都|整个文件|整段){0,3}(?:把[^，。]{1,20}?)?(?:用|使用|加|添加|写|引入|提交|留|装|安装"
            r"|硬编码|推|格式化|改|动|删|重构|推荐|建议|生成|输出|贴|放|跑|执行|运行|打印|记录|暴露"
            r"|上传|重写|引|开启|打开|启用|开|带)"
        ),
        "preference.zh.answers": (
            r"(?:回答|回复|解释|说明)(?:尽量|请|要)?(?:简洁|简短|精简)|(?:交流|沟通|回复"
            r"|回答|答复)(?:我)?(?:都|请|统一|一律)?用(?:中文|英文|英语)|请(?:用|使用|统一用)(?!这)"
            r"|默认(?:用|使用|走)"
            # 提交信息用中文写, commit message 用英文写 (round 51, b47): what the agent writes
            # for the team, in which language
            r"|(?:commit\s*(?:message|msg)s?|提交信息|提交说明|注释|代码注释|changelog|PR\s*描述)"
            r"\s*(?:都|统一|一律|请)?(?:用|写成)(?:中文|英文|英语)"
        ),
        # 这个项目不引 axios，原生 fetch 就够了: a library kept out, and what does instead.
        "preference.zh.not_here": (
            r"(?:不引入?|不装|不上)\s*[A-Za-z][\w.+-]*[^，。]{0,6}[，,]\s*[^，。]{0,16}?(?:就够(?:用)?了"
            r"|就行|就可以)|(?:项目|仓库|代码库|服务|工程|我们)(?:里|这边)?(?:不引入?|不装)\s*[A-Za-z]"
        ),
        # The language of what the product says to its users: "改成中文吧，用户都是大爷大妈",
        # "switch the error messages to Spanish, our users are in Mexico" (b28). A text of the
        # moment ("translate this paragraph into English") names what it translates.
        "preference.copy_language": (
            r"^(?:please\s+)?(?:switch|change|make|put|write|translate)\s+(?:(?:it|them|all"
            r"|the|our|every)\s+)?(?:(?:[\w-]+\s+){0,2}?(?:messages|copy|labels|strings|text|texts"
            r"|errors|ui|prompts|notifications|emails)\s+)?(?:to|into|in)\s+(?:chinese|english"
            r"|spanish|german|french|japanese|portuguese|korean|italian|dutch)\b"
            r"|^(?:都|全部|统一)?(?:改成|换成|改用|写成|用)(?:简体|繁体)?(?:中文|英文|英语|日文|日语)"
            r"(?:吧|的)?(?:[，,。！!]|$)"
            r"|(?:提示|文案|报错|界面|错误信息|按钮|菜单)(?:都|全部|统一)?(?:改成|换成|用|写成)"
            r"(?:简体|繁体)?(?:中文|英文|英语)"
        ),
        # Said for every project (EVERY_PROJECT): a rule meant to follow the user anywhere.
        "preference.every_project": _EVERY_PROJECT,
    }
)


# How the agent should talk to the user ("explain the tradeoffs first", 先给我讲讲利弊): a
# preference about the agent, even when it reads as a sequence of steps. Approval gates ("ask
# me before deleting") stay workflows.
COMMUNICATION = Gated(
    re.compile(
        r"\b(?:explain|tell me|show me|summari[sz]e|walk me through|describe)\b"
        r"|给我讲|讲讲|解释一下|告诉我|回答|回复|说清楚|讲清楚|说结论|思路",
        _I,
    )
)

# The agent waiting for the user's say-so before it acts: "show me first", "wait for my ok",
# "check with me", 给我看, 我点头了你再改, 等我确认 (round 50, b45 zh-24).
USER_APPROVES = re.compile(
    r"\bshow me\b|\brun (?:it|them|that|this) (?:past|by) me\b|\bcheck with me\b"
    r"|\b(?:ask|asking) me\b|\b(?:wait for|get|until you have|until you've got) my (?:ok|okay"
    r"|go-?ahead|approval|sign-?off|nod|yes)\b|\bonce I(?:'ve)? (?:approved?|signed off|said yes"
    r"|ok'?d|nodded)\b|\buntil I(?:'ve)? (?:approved?|signed off|said yes|ok'?d|nodded)\b"
    r"|给我(?:看|过目|确认)|让我(?:先)?(?:看|过目|确认)|等我(?:确认|同意|点头|看过|批)"
    r"|我(?:点头|同意|确认|批准|看过|审过|拍板)了?(?:以后|之后)?(?:你)?(?:再|才)",
    _I,
)

# "When you write migrations here, make them reversible": how the agent should write code (a
# step it should add, "when you add an env var, also add it to …", stays a workflow).
AGENT_STYLE = re.compile(
    r"^(?:when(?:ever)?|if) you (?:write|add|create|generate|make)\b[^,]{0,40}?,?\s*(?:make"
    r"|do|keep|write|have) (?:them|it|those|each)\b"
    # "when you hand me a regex, walk through it …": how the agent gives the user things (b27)
    r"|^(?:when(?:ever)?|if) (?:you|u) (?:hand|give|send|show|paste) me\b[^,]{1,40},"
    # "when you write tests for X, freeze time … instead of calling now()": the way to do it,
    # said against another way, is how the agent should work, not a step to add (b31).
    r"|^(?:when(?:ever)?|if) you \w+\b[^,]{1,60},[^,]*?\b(?:instead of|rather than)\b"
    # "when you make branches for me put the ticket number first" (b32): done for the user
    r"|^(?:when(?:ever)?|if) you \w+\b[^,.]{1,40}?\bfor me\b"
    # "when I ask for status, just give me short bullets" (round 51, b46): how it answers
    rf"|{_AGENT_HANDS_ME}",
    _I,
)

# "I like / I prefer / I'd like / 我喜欢 / 我希望" speak for the user's taste even when the
# sentence also describes an order of steps, so `capture` tries them before the workflow rules.
FIRST_PERSON_PREFERENCES = tuple(
    r
    for r in PREFERENCE_RULES
    if r.name
    in {
        "preference.like",
        "preference.prefer",
        "preference.zh.like",
        "preference.zh.i_write",
        "preference.answers",
        "preference.zh.answers",
        "preference.copy_language",
        # a naming convention is a rule, before the sequence its words may read as ("ticket
        # number first then a slug", b33)
        "preference.naming",
    }
)
RULE_ORDER: tuple[tuple[Rule, ...], ...] = (
    FIRST_PERSON_PREFERENCES,
    PATTERN_RULES,
    DECISION_RULES,
    PROFILE_RULES,
    PREFERENCE_RULES,
)


def _rules_by_role(order: tuple[tuple[Rule, ...], ...]) -> dict[str, tuple[Rule, ...]]:
    # Trigger: a rule listed twice in RULE_ORDER (the first-person preferences). Why: on its
    # second try it sees the same clause that already failed it, so it cannot fire; searching
    # again cost ~40 us per long user sentence. Outcome: each rule once, at its first position.
    roles = dict.fromkeys(role for rules in order for rule in rules for role in rule.roles)
    flat = tuple(dict.fromkeys(rule for rules in order for rule in rules))
    return {role: tuple(rule for rule in flat if role in rule.roles) for role in roles}


# RULE_ORDER flattened per speaker, in order; `capture.classify` walks these.
RULES_BY_ROLE: dict[str, tuple[Rule, ...]] = _rules_by_role(RULE_ORDER)


# A Chinese copular statement ("缓存是按租户隔离的"), for text already known to state something
# (a correction): as checkable as a value. Not one about the speakers ("是我搞错了"). What a
# thing counts as is said the same way ("两个孩子以上的家庭才算大户", round 45).
ZH_COPULAR = re.compile(
    r"^(?!是?[我你他她])[^，。]{0,20}?[\u4e00-\u9fff]{2}\s*(?:是|才?算(?:作)?)\s*\S{2}"
)

# "X, not Y" in a correction: the contrast says what the fact is, with no value needed.
CONTRAST = re.compile(r",\s*not (?:the |a |an )?\w|\binstead of\b|[，,]\s*不是\s*\S", _I)


# What the user may not change on the machine they work with: "i cant upgrade it", "no admin
# rights", "locked down by IT", 不让升级, 装不了新版 node, 不给管理员权限 (round 46, b39). Read
# with OWN_MACHINE or the first person, it says who the user is and what they can work with.
ENV_CONSTRAINT = re.compile(
    r"\b(?:can'?t|cannot|can not|not allowed to|unable to|no way to|won'?t be able to)"
    r" (?:upgrade|install|reinstall)\b"
    r"|\b(?:won'?t|doesn'?t|don'?t) let (?:me|us) (?:upgrade|install)\b"
    r"|\bno (?:local )?(?:admin(?:istrator)?|root|sudo) (?:rights|access|privileges|permissions?)\b"
    r"|\blocked[- ]down\b"
    # the regime the user's system runs under: what may not leave it, what it may not reach
    # ("nothing may leave the trust network", "no cloud APIs", 所有依赖必须走内网, 不能直连 npm,
    # 等保三级; round 46, b40)
    r"|\bnothing (?:may|can|is allowed to|must) leave\b|\bno cloud (?:apis?|services)\b"
    r"|\bair[- ]?gapped\b|必须走内网|只能走内网|只能跑在内网|不能直连|不能连外网|不能访问外网"
    # all the user has to work on is a phone or a tablet ("on weekdays I only have my phone —
    # Termux + ssh", 平时只有手机能用; round 50, b45 en-30)
    r"|\b(?:I )?(?:only|just) (?:have|got) (?:my |a |an )?(?:phone|tablet|ipad|chromebook)\b"
    r"|\ball I (?:have|got) is (?:my |a |an )?(?:phone|tablet|ipad|chromebook)\b"
    r"|只有(?:一部|一台)?(?:手机|平板|ipad)|只能(?:用|拿)(?:手机|平板|ipad)"
    r"|等保[一二三四]级"
    r"|不让(?:升级|装|安装)|(?:装|升级|安装)不了|不能(?:升级|装|安装)"
    r"|没有(?:管理员|root|sudo|admin)\s*权限|不给(?:管理员|root|sudo|admin)?\s*权限|没法(?:升级|装|安装)",
    _I,
)
# The machine the user works on or their code runs on, named as theirs: a laptop, the office PC,
# the box in the shed, a Raspberry Pi, 公司电脑, 办公室电脑, 服务器 (the one they were asked about).
OWN_MACHINE = re.compile(
    r"\b(?:my|work|office|school|company|the council's|our)\s+(?:[\w-]+\s+)?(?:laptop|pc|computer"
    r"|machine|desktop|mac|box|server|phone|tablet|ipad)\b|\b(?:raspberry pi|pi \d|chromebook"
    r"|thinkpad)\b"
    r"|\b(?:it'?s|its) an? (?:[\w.-]+ ){0,3}(?:box|machine|laptop|pc|server)\b"
    r"|(?:公司|单位|办公室|学校|医院|店里|家里)?的?(?:电脑|笔记本|台式机|机器|服务器|手机|平板)"
    # the system the user looks after, named as the one at hand ("this system handles …",
    # 本系统部署在…; b40)
    r"|\b(?:this|our) (?:system|platform|service)\b|本系统|这套系统|这个系统|我们的系统",
    _I,
)
# Someone else's account or a service's lacks ("the deploy user has no admin rights", "the CI
# runner can't install packages"): no one's profile.
OTHERS_ACCOUNT = re.compile(
    r"\b(?:the|our|that|this) (?:[\w-]+ )?(?:user|account|runner|service|bot|container|job"
    r"|pipeline|role)s? (?:has|have|is|are|can'?t|cannot)\b",
    _I,
)
