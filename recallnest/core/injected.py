"""Context an agent or RecallNest injected into a turn, not typed by the user: the agents'
wrapper tags, our own resume marker, and pasted agent instruction files. One rule, shared by
capture, query understanding and checkpoints. Standard library only.
"""

from __future__ import annotations

import re

from recallnest.core.marker import CONTEXT_MARKER

_INJECTED_PREFIXES = (
    "<system-reminder>",
    "<environment_context>",
    "<user_instructions>",
    "<hook_context>",
    "<session_context>",
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<user-prompt-submit-hook>",
    "<instructions>",
    "# agents.md instructions",
    "caveat: the messages below were generated",
    "[request interrupted by user",
)
_INJECTED_TAGS = (
    "system-reminder|environment_context|user_instructions|hook_context|session_context"
    "|command-name|command-message|command-args|local-command-stdout|local-command-stderr"
    "|user-prompt-submit-hook|INSTRUCTIONS"
)
_INJECTED_BLOCK = re.compile(
    rf"(?:<|&lt;)({_INJECTED_TAGS})(?:>|&gt;).*?(?:<|&lt;)/\1(?:>|&gt;)", re.DOTALL | re.IGNORECASE
)


# An agent instruction file pasted into the chat (AGENTS.md, CLAUDE.md, GEMINI.md, cursor rules):
# its heading, the line that introduces it ("Here's our CLAUDE.md:"), or its stock first line.
_INSTRUCTION_FILE = re.compile(
    r"^\s*#{1,3}\s*(?:agents|claude|gemini|codex|copilot-instructions)\.md\b"
    r"|^\s*#{0,3}\s*\.(?:cursorrules|windsurfrules)\b"
    r"|\bprovides guidance to (?:claude|codex|gemini|copilot|ai|agents?|coding agents)\b"
    r"|^.{0,60}?\b(?:agents|claude|gemini)\.md\b.{0,40}?[:：]\s*$"
    r"|^\s*#{1,3}\s.{0,60}?\b(?:agents|claude|gemini)\.md\b",
    re.IGNORECASE | re.MULTILINE,
)


def strip_injected(text: str) -> tuple[str, bool]:
    """Text with complete injected blocks cut out, and whether the rest is injected too."""
    # Trigger: our own resume-context marker anywhere. Why: the parsers drop such turns, but a
    # stray copy must never be captured back as the user's memory. Outcome: the whole turn goes.
    if CONTEXT_MARKER in text:
        return "", True
    rest = _INJECTED_BLOCK.sub(" ", text).strip()
    if rest.casefold().startswith(_INJECTED_PREFIXES) or rest.startswith("&lt;"):
        return "", True
    # Trigger: the text of an agent instruction file, pasted or injected. Why: its rules are
    # the file's, already loaded every session, and never the user speaking. Outcome: skipped,
    # from the line that heads or introduces it on; what the user said before it stays
    # ("paotui 的后端，Hono 跑在 Cloudflare Workers 上。这是老项目的 GEMINI.md，你参考下：",
    # e2e-heldout15 h15g02), without the sentence that names the file.
    found = _INSTRUCTION_FILE.search(rest)
    if found is not None:
        said = _said_before(rest, found)
        return said, said == ""
    return rest, rest == "" and text.strip() != ""


# A sentence's end, to cut the one that introduces the file from the prose before it.
_SENTENCE_END = re.compile(r"(?<=[。！？])|(?<=[.!?])(?=\s)|(?=\n)")


def _said_before(text: str, found: re.Match[str]) -> str:
    """The user's words before an instruction file: the sentences before the one that heads,
    names or introduces it. A file found by its stock wording ("provides guidance to …") has no
    known start: nothing is kept."""
    if found.group(0).casefold().startswith("provides guidance"):
        return ""
    end = text.find("\n", found.start())
    kept = []
    for sentence in _SENTENCE_END.split(text[: len(text) if end < 0 else end]):
        if _FILE_NAME.search(sentence) or sentence.lstrip().startswith("#"):
            break
        kept.append(sentence)
    return "".join(kept).strip()


_FILE_NAME = re.compile(
    r"\b(?:agents|claude|gemini|codex|copilot-instructions)\.md\b|\.(?:cursorrules|windsurfrules)\b",
    re.IGNORECASE,
)
