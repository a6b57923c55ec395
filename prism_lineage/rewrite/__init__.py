"""Rewrites of the Prism IR that keep authored origins (specs/rewrites.md, docs/rewrites.md).

``rewrite_statement(statement)`` runs the pipeline (rewrite/pipeline.py) and returns the
statement as authored and as rewritten.  Each rewrite has its own module named after it;
every one is applied with the IR's one walk (``ir.walk.transform``) and returns
``Transformed(node, changed)``.  The rewritten plan says the same thing as the authored one:
``explain`` gives identical answers for both, and every rewritten target names the authored
targets it stands for (``authored``; see rewrite/provenance.py).
"""

from .context import RewriteContext
from .pipeline import (
    REWRITES,
    Rewrite,
    RewriteError,
    RewrittenStatement,
    rewrite_statement,
    rewrite_statements,
)
from .provenance import authored_ids

__all__ = [
    "REWRITES", "Rewrite", "RewriteContext", "RewriteError", "RewrittenStatement", "authored_ids",
    "rewrite_statement", "rewrite_statements",
]
