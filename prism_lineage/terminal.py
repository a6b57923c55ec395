"""Text that is safe to print on a terminal.

Names, owners, notes and SQL fragments come from files a reader does not control; printed raw,
an escape sequence in them can move the cursor, rewrite earlier lines or change the window
title. Every text rendering passes user-supplied strings through :func:`printable`. JSON output
needs none of this: ``json.dumps`` already escapes control characters.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and the C1 controls (U+0080-U+009F, which include
# the 8-bit CSI); also the bidirectional overrides and isolates that reorder what is shown.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str, *, newlines: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``), never sent raw.

    A newline inside a value would forge a line of output, so it is escaped too unless
    ``newlines`` says the text is a block of lines by design.
    """
    if newlines:
        return _UNSAFE.sub(_escape, text)
    return _UNSAFE.sub(_escape, text).replace("\n", "\\n").replace("\t", "\\t")
