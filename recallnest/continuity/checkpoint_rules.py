"""Cue-word rules for session checkpoints (`recallnest.continuity.checkpoint`), in English and
Chinese.

Owns the named repo-state rule (`REPO_STATE`, `is_repo_state`, `drop_repo_state`) that every
recalled text goes through, and the patterns that pick done reports, decisions, TODOs, next
steps, failures and their fixes, paths, entities and trivial shell commands. Pure: no I/O,
clock or environment; standard library plus `salience` sentence splitting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from recallnest.capture.chatter import (
    INDENTED,
    is_bare_paste_intro,
    is_pasted_line,
    smoothed,
    traceback_lines,
)
from recallnest.capture.chatter import TASK as _TASK
from recallnest.capture.rules import WORKS_NOW as WORKS_NOW
from recallnest.capture.salience import classify_line, split_sentences

# --------------------------------------------------------------------------- repo state

# The named rule "repo_state". Trigger: a sentence that asserts the state of the repository
# (uncommitted/staged/untracked changes, clean or dirty tree, ahead/behind counts, current
# branch, unpushed commits, stash). Why: that state changes outside the conversation, so a
# recalled claim is stale by the next session and would mislead the agent. Outcome: the
# sentence is dropped from checkpoints and from every recalled note; the agent checks live.
REPO_STATE = re.compile(
    r"\buncommitted\b|\bnot (?:yet )?(?:been )?committed\b|\bnothing to commit\b"
    r"|\bworking (?:tree|directory|copy) (?:is|was|looks|remains|has)\b"
    r"|\b(?:clean|dirty) (?:working )?(?:tree|worktree|checkout|working directory)\b"
    r"|\b(?:tree|repo|repository|worktree|workspace|branch) is (?:clean|dirty)\b"
    r"|\b(?:ahead|behind) (?:of )?\S{0,40}\s?by \d+\b|\b\d+ commits? (?:ahead|behind)\b"
    r"|\b(?:is|are) (?:now )?(?:ahead|behind) of\b"
    r"|\bup[ -]to[ -]date with '?(?:origin|upstream|remote)\b"
    r"|\b(?:have|has) diverged\b|\buntracked files?\b|\b(?:un)?staged (?:changes?|files?)\b"
    r"|\bchanges (?:are )?(?:not )?staged\b|\bnot staged\b"
    r"|\b\d+ files? (?:are |were )?(?:modified|staged|unstaged|untracked|pending|dirty)\b"
    r"|\b(?:local|pending) (?:changes|modifications|edits)\b|\bunpushed\b"
    r"|\bnot (?:yet )?(?:been )?pushed\b|\bgit status (?:shows|says|reports|is)\b"
    r"|\bOn branch\b|\b(?:currently|now) on (?:the )?\S{0,40}\s?branch\b|\bcurrent branch is\b"
    r"|\bHEAD is (?:at|now)\b|\bdetached HEAD\b|\bstash(?:ed)? (?:changes|entries|entry)\b"
    r"|未提交|未暂存|已暂存|暂存区|工作(?:区|树)(?:是|很|已)?干净|没有(?:需要)?提交的|无文件要提交"
    r"|领先.{0,20}?\d+\s*个提交|落后.{0,20}?\d+\s*个提交|未跟踪|未推送|尚未推送|还没(?:有)?(?:提交|推送)"
    r"|当前分支|本地(?:修改|改动)",
    re.IGNORECASE,
)


def is_repo_state(sentence: str) -> bool:
    """True when the sentence asserts repository state (see REPO_STATE)."""
    return REPO_STATE.search(sentence) is not None


# Finer than sentence splitting: a clause boundary after any stop or semicolon, whatever case
# follows ("The tree is clean. parsekit uses ruff"), so a claim never takes its neighbour along.
_CLAUSE_END = re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])")


def drop_repo_state(text: str) -> str:
    """`text` as one line of its clauses, without those that assert repository state."""
    clauses = (c for s in split_sentences(text) for c in _CLAUSE_END.split(s))
    return " ".join(c for c in clauses if c and not is_repo_state(c))


# --------------------------------------------------------------------------- summary

FENCED = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)

# Verbs of a report of work done, in the past tense.
_DONE_VERBS = (
    r"(?:fixed|added|updated|implemented|changed|removed|deleted|refactored|created|wrote|written"
    r"|renamed|moved|made|resolved|replaced|cleaned|converted|migrated|set up|switched|rewrote"
    r"|extracted|split|merged|patched|corrected|adjusted|introduced|finished|completed|edited"
    r"|raised|lowered|increased|decreased|reduced|bumped|pinned|upgraded|downgraded|disabled"
    r"|enabled|wired|exposed|restored|reverted|ported|documented|installed|configured|limited"
    r"|optimi[sz]ed|simplified|guarded|wrapped|handled|validated|swapped|dropped|tightened"
    r"|relaxed|shortened|normali[sz]ed|escaped|locked|reordered|inlined|streamed"
    r"|cached|deduplicated|silenced|skipped|marked|rotated|released|published|deployed"
    r"|tagged|regenerated|rebuilt|reran|retried|rolled back|tuned)\b"
)
DONE = re.compile(
    r"^(?:so |now |ok(?:ay)?,? )?(?:I(?:'ve| have)?|we(?:'ve| have)?)\s+(?:now\s+|just\s+|also\s+)?"
    + _DONE_VERBS
    # The subject-less form assistants write ("Updated deploy/k8s/staging to 3 replicas.")
    + r"|^(?:(?:also|then|and|so),? )?"
    + _DONE_VERBS
    + r"|^(?:done|fixed|finished|completed|all set|all done|summary|root cause)\b"
    # "原因：每次都实时调地图接口…" opens the report of a diagnosis, as "Root cause:" does
    # (e2e-heldout23 h23g04)
    r"|^(?:原因|根因|根本原因)(?:找到了|是|在于)?\s*[:：]"
    # "parse_amount in csv_import.py now strips it": what the code does since the change.
    r"|\b(?:[\w./()-]+ in )?[\w./()-]+ now (?!is\b|has\b|needs\b|looks\b|seems\b)[a-z]+s\b"
    # … and of things in the plural: "yards without a postcode now go into an 'unplaced'
    # group" (e2e-heldout31 h31c01), never what someone now must, wants or thinks
    r"|^(?:the |all |any |new |old )?(?!(?:I|we|you|they|users|people|customers)\b)[a-z]{2,}s\b"
    r"[^.;:!?]{0,50}? now (?!(?:are|have|need|look|seem|want|think|know|feel|must|should"
    r"|can|could|would|will)\b)[a-z]{2,}\b"
    # "REBOOK_WEEKS trim is now 7": a named thing reported at its new value
    r"|^(?-i:[A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*) [\w.-]+ (?:is|are) now [\d£$€¥]"
    # "POLL_INTERVAL_S is now 300", "heartbeat_interval 改为 60s": a setting of the code, named,
    # reported at its new value (e2e-heldout11 h11c01, h11g04).
    r"|^(?-i:[A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*)(?: (?:is|are) now\b| ?(?:改为|改成|调为|设为))"
    r"|^(?:I|we) found (?:the|a) (?:cause|bug|problem|issue|culprit)\b"
    # "现在 Notify 失败后会在 30 秒、2 分钟各重试一次", "现在用运单号做唯一键": what the code
    # does since the change, said in Chinese (e2e-heldout20 h20x04); "现在我先…" is work begun
    r"|^现在(?!我|先|就|马上|开始|正在)[^，,。]{0,20}?(?:会|用|按|只|不再|直接|统一|都|改成|改为"
    # "现在小区地址做了本地缓存": what was made, in the perfective (h23g04)
    r"|做了|加了|改了|换了|去掉了|删了|放宽到|调到|改到|缩短到|延长到|收紧到)"
    # "现在先序列化成字节，再对同一份字节算 MD5 并发送" (e2e-heldout19 h19x04): the steps the code
    # now takes, first … then …; never the agent's own next move ("现在先看下日志，再决定",
    # "现在先改 config.py，再跑测试")
    r"|^现在先(?!看|查|试|想|确认|排查|跑|问|了解|改|加|写|做|装|删|弄|处理|提交|部署|修)"
    r"[^，,。]{1,20}?[，,]\s*再\S"
    r"|^(?:the )?(?:fix|change|patch)(?:es)? (?:is|are) (?:in|done|applied)\b"
    r"|^(?:all |the )?(?:\d+ )?tests? (?:now )?pass"
    r"|(?:已经|已)(?:修复|完成|添加|实现|更新|修改|删除|重构|改好|解决|迁移|替换|补充|加上|新增"
    r"|改成|改为|换成|转换|处理)"
    r"|^完成|(?:修复|完成|改好|解决)了|搞定"
    # a change in the perfective: "本地 .env 里配了 OSS_ACCESS_KEY_ID …，上传测试通过"
    # (e2e-heldout32 h32x02), 表里加了两个字段; never a question ("加了吗")
    r"|(?:配|加|删|建|装|写|补|拆)(?:好|上|进)?了(?![^，,。；;]*[吗吧么呢？?])(?=\s?[\w`\"'“(（])"
    r"|测试(?:全|都)?(?:部)?(?:通过|过了)"
    # "改成逐页检测，…", "已在 AndroidManifest 里补上 location 类型", "接头已经换了": a change
    # said by its verb, opening the sentence or after 已 (e2e-heldout27 h27g02, h27x02, h27c04)
    r"|^(?:改成|改为|换成|改用|补上|加上|去掉|删掉|换掉)(?!\s*\d)"
    r"|(?:已经|已)(?:在[^，,。]{1,30}?)?(?:补上|加上|换了|换掉|改了|去掉|删掉|过滤|关掉|打开)"
    # "导出文件名改成 report-2024-05.xlsx 这种格式了", "超时调到了 30 秒": what changed, in the
    # perfective
    r"|^[^，,。？?]{1,20}?(?:改成|改为|换成|调成|调到|设为|设成)(?:了|[^，,。？?]{1,40}?了(?=$|[。，,！!]))"
    # "…，package.json 里的 moment 删掉了。": a removal reported done (e2e-heldout20 h20x04)
    r"|(?:删掉|去掉|换掉|删除|移除|拿掉)了(?=$|[。，,；;！!])"
    # 补了 tests/…, 写好了单测, 加上了 retry: a short verb of finishing, in Chinese.
    r"|^(?:我)?(?:补|加|写|改|修|接)(?:好|完)?了|(?:写|补|改|加)好了",
    re.IGNORECASE,
)
SUMMARY_HEADING = re.compile(
    r"^(?:analysis|summary|primary request and intent|key technical concepts|current work"
    r"|pending tasks|optional next step|next steps?|files and code sections|errors and fixes"
    r"|problem solving|all user messages)\s*:?\s*",
    re.IGNORECASE,
)

# --------------------------------------------------------------------------- decisions, loops

DECISION = re.compile(
    r"\b(?:we(?:'ll| will)|let's|i'll|we're) (?:go|going|stick) with\b|\bgoing with\b"
    r"|\blet's use\b|\bwe(?:'ll| will) use\b|\bdecided (?:to|on|that|against)\b|\bdecision:"
    r"|\bwe agreed\b|\bagreed (?:to|on)\b|\bsettled on\b|\bopted (?:for|to)\b|\bchose to\b"
    r"|\bstick with\b|决定|就用|(?<!搞)定了|采用|选用|统一用|改用",
    re.IGNORECASE,
)
TODO = re.compile(
    r"\bTODO\b|\bFIXME\b|\bnext we need\b|\bwe still need\b|\bstill needs? to\b"
    r"|\bremaining (?:work|items?|tasks?)\b|\bleft to do\b|\bpending tasks?\b"
    r"|\bnot (?:yet )?(?:implemented|done|handled|covered)\b|\bneeds? (?:a )?follow[- ]up\b"
    r"|\b(?:still )?undecided\b|\bnot (?:yet )?decided\b|\bopen question\b"
    r"|还需要|待办|还没(?:有)?(?:做|完成|实现|处理|写|决定|定)|未完成|遗留|待定",
)
# A sentence that is a plan from its first words ("下一步做柜门异常告警", "next step: handle the
# upload error", "next time: the crash reporter"): a failure word inside it names the work.
PLAN_OPENING = re.compile(
    r"^(?:ok(?:ay)?,? |好的?，?\s*)?(?:next(?: steps?| time| session| up)?\b"
    r"|下一步|下次|下回|回头)",
    re.IGNORECASE,
)
NEXT = re.compile(
    r"\bnext steps?\b|\bnext,? (?:I|we)(?:'ll| will| should)\b|\bthen (?:I|we)(?:'ll| will)\b"
    r"|\bafter that,? (?:I|we)(?:'ll| will)\b|\b(?:I|we)(?:'ll| will) (?:next|then)\b"
    r"|\bnext up\b|\bnext time\b|\b(?:in )?the next session\b|^next(?:[,:]\s|\s+(?:we|I|let's)\b)"
    # "Yes, do that next session.", "ok, tackle it next week", "finish it tomorrow": work put off
    # to a named later time is the next step (e2e-heldout5 h5g02).
    r"|\b(?:do|try|handle|tackle|fix|finish|pick up|continue|start)\s+(?:that|it|this|those"
    r"|these)\s+(?:(?:in )?(?:the )?next (?:session|sprint|week)|tomorrow)\b"
    r"|接下来|下一步|然后(?:我们?)?(?:再|会|要)|之后(?:我们?)?(?:再|会|要)|下次|下回",
    re.IGNORECASE,
)
FAILURE = re.compile(
    r"\bTraceback\b|\b[1-9]\d* (?:tests? )?(?:failed|failing|failures?|errors?)\b"
    r"|\b(?i:failing|fails|failed)\b|\b[A-Z]\w*(?:Error|Exception)\b|\berror:"
    r"|\bbroken\b|\b(?:doesn't|does not|didn't|won't) (?:work|pass|compile|build)\b"
    r"|\bcrash(?:es|ed|ing)?\b|\bsegfault\b|\bpanic(?:ked)?\b|报错|失败|错误|异常|崩溃|不通过|还是不行",
)
RESOLVED = re.compile(
    r"\b(?:all|the) (?:\d+ )?(?:tests?|checks?) (?:now )?pass(?:es|ed)?\b"
    r"|\btests? (?:now )?pass(?:es|ed)?\b|\b\d+ passed\b|\b0 failed\b"
    r"|\bno (?:more )?(?:errors|failures)\b|\b(?:fixed|resolved|green)\b"
    # "… and next build passes", "it compiles again" (e2e-heldout22 h22g01)
    r"|\b(?:builds?|deploys?) (?:now |again )?(?:passes|passed|succeeds|succeeded"
    r"|works|compiles)\b|\b(?:builds?|compiles?) (?:cleanly|fine|again|now)\b"
    r"|通过|已修复|修好了|解决了|(?:构建|编译|打包)(?:成功|正常)",
    re.IGNORECASE,
)
STILL_FAILING = re.compile(
    r"\bstill\b|\b(?:not|n't|yet to)\b[^.]{0,20}\b(?:fixed|resolved|pass)|\b[1-9]\d* failed\b"
    r"|仍然|还是|依然|没(?:有)?(?:修复|解决|通过)",
    re.IGNORECASE,
)


def _pasted_code_lines(lines: Sequence[str]) -> set[int]:
    """Indexes of lines in runs of two or more that capture reads as code (`classify_line`):
    a pasted file, no one's ask (".env for the bot and overlay:" then three `NAME=value` lines
    became the session's "Asked:", e2e-heldout29 h29g03). One such line alone may be what the
    user set ("WORKER_CONCURRENCY=4"), and stays."""
    out: set[int] = set()
    run: list[int] = []
    for index, line in enumerate([*lines, ""]):
        if line.strip() and classify_line(line) != "text":
            run.append(index)
            continue
        if len(run) >= 2:
            out.update(run)
        run = []
    return out


# Lines of pasted output (tracebacks, test runners, package and build output, logs, kubectl)
# and indented code: never prose, so never a request, a report or an open loop. Named rule
# "pasted_output"; the definition is `chatter`'s, the one capture uses too.
def drop_log_lines(text: str) -> str:
    """`text` without the lines that are pasted output or indented code."""
    lines = text.splitlines()
    traceback = traceback_lines(lines)
    pasted = _pasted_code_lines(lines)
    noisy = [
        index in traceback
        or index in pasted
        or is_pasted_line(line)
        or INDENTED.match(line) is not None
        for index, line in enumerate(lines)
    ]
    out = smoothed(lines, noisy)
    for i, line in enumerate(lines):
        # Trigger: "run log fyi" / 输出是这样的 right before the output it introduces. Why: with
        # the output gone it says nothing, and became the session's "Later:" or an unanswered
        # ask (e2e-heldout10). Outcome: dropped with its output.
        after = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        if not out[i] and after is not None and out[after] and is_bare_paste_intro(line):
            out[i] = True
    return "\n".join(line for line, gone in zip(lines, out, strict=True) if not gone)


# A user turn that asks for work (`chatter.TASK`); anything else is small talk.
TASK = _TASK
# The sentence that states the ask itself, not its context.
ASK = re.compile(
    r"\b(?:I want|I'd like|I need|we need|let's|please|can you|could you|would you)\b"
    r"|帮我|请(?!了|过|假|客|教|问)你?|我想|我要|需要你",
    re.IGNORECASE,
)

# "Let's do that next time": a reference back, with nothing of its own to say.
# The assistant asking what to work on: the turn it answers set no task.
WHAT_NEXT = re.compile(
    r"\bwhat(?:'s| is) next\b|\bwhat (?:are we|shall we|should we|do you want to|would you like"
    r" to|can I help)\b[^?]{0,40}\?|\bwhat(?:'s| is) (?:on the (?:list|agenda)|the plan)\b"
    r"|\bhow can I help\b|(?:今天|现在|接下来)?(?:要|想)?(?:做|搞|弄)(?:点)?(?:什么|啥)[？?]"
    r"|有什么(?:要|需要)?(?:我)?(?:帮忙|做)的"
    # "今天排档要弄哪块？" (e2e-heldout17 h17x02)
    r"|(?:要|想|先)?(?:弄|做|搞|改|看)哪(?:块|个|部分|里|儿)(?:呢)?[？?]",
    re.IGNORECASE,
)
ANAPHORIC = re.compile(
    r"^(?:ok(?:ay)?,? |sure,? |yes,? |yeah,? |good idea,? )?(?:let's |we(?:'ll| will| can"
    r"| should) |i(?:'ll| will) |please )?(?:do|try|handle|tackle|fix|add|implement|look at"
    r"|pick up|leave|keep|save)\s+(?:that|it|this|those|these)\b[\w\s]{0,20}[.!。]?$"
    r"|^(?:那|这)(?:个|些)?(?:就)?(?:下次|以后|之后|回头|明天)(?:再|接着|继续)?(?:做|弄|处理|说|搞)",
    re.IGNORECASE,
)
# An assistant line that starts work rather than reporting it ("Starting with the model",
# "I'll start with…", 先改…, 我来看一下…, 我现在把…), after an optional acknowledgement
# ("OK,", 好的，, 收到，). A 先 clause in the past ("先看了一下，…") is a report, not a start.
PROGRESS = re.compile(
    r"^(?:(?:ok(?:ay)?|sure|alright|right|got it|understood|will do)[,.!]? "
    r"|(?:好的|好|行|嗯|收到|明白|了解|没问题)[,，、!！]?\s*)?"
    r"(?:let me\b(?! know)|i'm now\b|starting\b|now (?:i|let's)\b"
    r"|first,? (?:i|let's)\b|working on\b|looking (?:at|into)\b"
    r"|i(?:'ll| will) (?:start|begin|first|now)\b|i(?:'m| am) (?:going to|gonna|about to|starting"
    r"|working)\b|going to\b"
    # "Writing import_ratings() in scoring/phrf_import.py: reading …": a gerund of work opening
    # the turn is work under way, not a report (e2e-heldout11 h11c03).
    r"|(?:writing|adding|wiring|implementing|refactoring|rewriting|porting|migrating|converting"
    r"|updating|replacing|renaming|moving|creating|patching|editing)\s+(?!(?:is|was|it|them)\b)\S"
    r"|(?:那)?我?(?:先|来|现在|这就|马上|立刻)(?![^，,。]{0,2}了)|开始|正在)",
    re.IGNORECASE,
)
# How far unfinished work got: "Model wiring is half done", "the tests are not written yet",
# 还没写完, 做了一半.
UNFINISHED = re.compile(
    r"\b(?:half[- ](?:done|finished|wired|written|way)|partly (?:done|wired|written)"
    r"|not (?:yet )?(?:done|finished|complete|wired|written|hooked up)|(?:is|are) still missing"
    r"|still (?:need|have) to|(?:is|are) in progress|work in progress)\b"
    r"|还没(?:做完|写完|改完|弄完|完成|接好|接完|跑通)|做了一半|写了一半|改了一半|进行中|未完成",
    re.IGNORECASE,
)
PROPOSAL = re.compile(
    r"\b(?:could|should|might|we can|i can|suggest|option|would be|worth|how about|what about)\b"
    r"|可以|建议|要不要|不如",
    re.IGNORECASE,
)
FIX_WORDS = re.compile(r"\b(?:fix(?:ed|es)?|resolved?)\b|修复|解决", re.IGNORECASE)
CAUSE_WORDS = re.compile(r"\b(?:root cause|the cause|caused by)\b|原因", re.IGNORECASE)

FAILURE_LINE = re.compile(
    r"^\s*(?:FAILED\b|Traceback \(most recent call last\)|E\s+\w+(?:Error|Exception)\b"
    r"|=+ .*\b[1-9]\d* (?:failed|errors?)\b)",
    re.MULTILINE,
)


def failure_state(sentence: str) -> str | None:
    """ "fail", "fixed" or None: what the sentence says about the failures so far."""
    failing = FAILURE.search(sentence) is not None
    if failing and STILL_FAILING.search(sentence):
        return "fail"
    if RESOLVED.search(sentence):
        return "fixed"
    return "fail" if failing else None


# --------------------------------------------------------------------------- files, entities

PATH = re.compile(
    r"(?<![\w/.:@-])(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}\b"
    r"|(?<![\w/.:@-])[\w-]+\.(?:py|pyi|js|mjs|ts|tsx|jsx|rs|go|java|kt|rb|php|c|h|cc|cpp|hpp"
    r"|cs|swift|md|rst|toml|json|jsonl|yaml|yml|ini|cfg|sql|sh|html|css|scss|vue|lock|txt)\b"
)
# Brackets stay in: a redacted password ("user:[REDACTED:url-password]@host") is part of it.
URL = re.compile(r"https?://[^\s)>\"'`]+")
ENTITY_PATTERNS = (
    re.compile(r"`([^`\s]{2,60})`"),
    re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Warning))\b"),
    re.compile(r"\b((?:[A-Z][a-z0-9]+){2,}[A-Za-z0-9]*)\b"),
    re.compile(r"\b([A-Za-z_][A-Za-z0-9_.]{2,50}\(\))"),
    re.compile(r"::([A-Za-z_]\w{2,60})"),
    re.compile(r"\b(ERR_[A-Z0-9_]{3,40}|E(?:NOENT|ACCES|ADDRINUSE|CONNREFUSED|PERM|EXIST))\b"),
    re.compile(r"\b((?:HTTP|TS|E|W|C|F|PEP)\s?\d{3,4})\b"),
    re.compile(r"\b(?:pip|uv|npm|pnpm|yarn|cargo|go|gem|poetry) (?:install|add|get) ([\w@/.-]+)"),
)

# --------------------------------------------------------------------------- commands

# Read-only inspection commands say nothing about the work: listing, paging, searching,
# and git's state queries (whose answers must be checked live anyway).
TRIVIAL_COMMANDS = frozenset(
    re.findall(
        r"\S+",
        "ls ll la cd cat pwd echo head tail less more clear which type wc tree true exit history"
        " whoami date file stat grep rg ag find fd sed awk sleep open",
    )
)
TRIVIAL_GIT = frozenset(re.findall(r"\S+", "status diff log show branch blame remote"))
COMMAND_PREFIX = re.compile(r"^(?:\s*(?:cd\s+\S+|\w+=\S*|sudo|time|env)\s*(?:&&|;)?\s*)+")
