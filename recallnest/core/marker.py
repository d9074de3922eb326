"""The first line of every resume context we inject. Its own module, with no imports, because
the hook's fast path needs it and nothing else from `models`.

Parsers drop any turn containing it so our own injection never flows back in as a turn or a
memory. Plain ASCII with no < or >: Gemini CLI HTML-escapes those characters in injected
context.
"""

CONTEXT_MARKER = "RECALLNEST RECALLED NOTES"
