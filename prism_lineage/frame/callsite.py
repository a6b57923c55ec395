"""Call-site origins: where in the user's Python code a dataframe target was written.

Every builder call (``table(…)``, ``col(…)``, ``.filter(…)``, ``F.sum(…)`` …) records the
user's own call site as the authored origin of what it builds: the innermost frame of the
call stack that is *not* inside the ``prism_lineage`` package.  Python 3.11+ keeps the span of
the expression each bytecode instruction executes (``co_positions``), so the origin has a
line and a column, not just a line: two calls on one line get different origins, and a
method call in a multi-line chain starts at its method name (CPython moves a method call's
start to the attribute's line when the chain spans several lines).

Columns are 1-based like SQL origins; Python reports them in UTF-8 bytes, so a line with
non-ASCII text before the call counts bytes.  When the interpreter keeps no positions
(``python -X no_debug_ranges``) the origin has the line and column 0.
"""

from __future__ import annotations

import sys
from itertools import islice
from pathlib import Path
from types import FrameType

from ..ir import Origin

# Frames whose code lives under this directory are the library's own, never the user's.
_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)


def _is_library(filename: str) -> bool:
    return filename.startswith(_PACKAGE_DIR)


def user_frame() -> FrameType | None:
    """The innermost frame outside the ``prism_lineage`` package."""
    frame = sys._getframe(1)
    while frame is not None and _is_library(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def call_site() -> Origin | None:
    """The origin of the user's call that is running now (``None`` without a Python caller)."""
    frame = user_frame()
    if frame is None:
        return None
    return _origin_of(frame)


def _origin_of(frame: FrameType) -> Origin:
    code = frame.f_code
    line = frame.f_lineno or code.co_firstlineno
    position = next(islice(code.co_positions(), frame.f_lasti // 2, None), None)
    if position is None or None in position:
        return Origin(line, 0, line, 0, None, code.co_filename)
    start_line, end_line, start_column, end_column = position
    # co_positions' end column is exclusive and 0-based, so it is the 1-based last column.
    return Origin(start_line, start_column + 1, end_line, end_column, None, code.co_filename)
