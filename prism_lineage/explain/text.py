"""``--format text``: a readable tree per field, like EXPLAIN output.

::

    statement 1: select
      reads: orders   writes: -
      customer_id
        value     orders.customer_id  identity   exact
        grouping  orders.customer_id  aggregate  exact
      sku
        value     orders.items  [].sku  nested_access  exact
      uncertain:
        total: lineage from t.* is unknown

Every column of the source lines is aligned over the whole statement, with at least two spaces
between columns, so long kinds (``semi_structured_access``) never run into the next one.  A
source's ``path`` is shown apart from its column, relative to it (``orders.items  [].sku``).
The ``uncertain`` reasons come last.  Every name, column and reason is user-supplied text:
it goes through ``terminal.printable`` (a control character is shown escaped, never sent).
"""

from __future__ import annotations

from ..terminal import printable
from .models import Explanation, SourceColumn, StatementAnswer

_GAP = "  "
# The narrowest the kind columns are drawn (the usual kinds line up the same in every answer);
# a longer value widens its column for the whole statement.
_RELATIONSHIP_WIDTH = len("grouping")
_TRANSFORMATION_WIDTH = len("expression") + 1


def _path_shown(source: SourceColumn) -> str:
    """The part of the column read, relative to the column: ``items[].sku`` of
    ``orders.items`` shows as ``[].sku``; empty when the whole column is read."""
    if source.path is None:
        return ""
    name = source.column.rpartition(".")[2]
    path = source.path
    return path[len(name):] if path.startswith(name) and len(path) > len(name) else path


def _cells(source: SourceColumn, with_paths: bool) -> list[str]:
    cells = [source.relationship, printable(source.column)]
    if with_paths:
        cells.append(printable(_path_shown(source)))
    cells += [source.transformation, source.confidence]
    return cells


def _source_lines(rows: list[list[str]], widths: list[int], indent: str) -> list[str]:
    lines = []
    for cells in rows:
        padded = [cell.ljust(width) for cell, width in zip(cells[:-1], widths)] + [cells[-1]]
        lines.append(indent + _GAP.join(padded))
    return lines


def _tables_line(statement: StatementAnswer) -> str:
    """The table-level summary: ``reads: customers, orders   writes: summary``."""
    reads = ", ".join(printable(t) for t in statement.reads) or "-"
    writes = ", ".join(printable(t) for t in statement.writes) or "-"
    return f"  reads: {reads}   writes: {writes}"


def render_statement(statement: StatementAnswer) -> list[str]:
    head = f"statement {statement.index + 1}: {statement.kind}"
    if statement.target:
        head += f" → {printable(statement.target)}"
    if getattr(statement, "procedure", None):
        head += f"   (in the body of {printable(statement.procedure)})"
    lines = [head, _tables_line(statement)]
    everything = [s for f in statement.fields for s in f.sources] + list(statement.rows or [])
    with_paths = any(s.path is not None for s in everything)
    table = [_cells(s, with_paths) for s in everything]
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]) - 1)] if table else []
    if widths:
        widths[0] = max(widths[0], _RELATIONSHIP_WIDTH)
        widths[-1] = max(widths[-1], _TRANSFORMATION_WIDTH)
    at = 0
    for field in statement.fields:
        lines.append(f"  {printable(field.name)}")
        if not field.sources:
            lines.append("    (no column sources: a constant, or a count of rows)")
            continue
        lines.extend(_source_lines(table[at:at + len(field.sources)], widths, "    "))
        at += len(field.sources)
    if statement.rows:
        lines.append("  (rows changed, removed or added)")
        lines.extend(_source_lines(table[at:], widths, "    "))
    if statement.uncertain:
        lines.append("  uncertain:")
        for item in statement.uncertain:
            where = f"{printable(item.field)}: " if item.field else ""
            lines.append(f"    {where}{printable(item.reason)}")
    if not statement.fields and not statement.uncertain and not statement.rows:
        lines.append("  (no output fields)")
    return lines


def render_text(explanation: Explanation) -> str:
    lines: list[str] = []
    for statement in explanation.statements:
        lines.extend(render_statement(statement))
    if not explanation.statements:
        lines.append("(no statements)")
    return "\n".join(lines) + "\n"
