"""``--format text``: a readable tree per field, like EXPLAIN output."""

from __future__ import annotations

from .models import Explanation, SourceColumn


def _shown(source: SourceColumn) -> str:
    """``orders.items`` read at ``items[].sku`` shows as ``orders.items[].sku``."""
    if source.path is None:
        return source.column
    table = source.column.rpartition(".")[0]
    return f"{table}.{source.path}"


def _source_lines(sources: list[SourceColumn], indent: str) -> list[str]:
    width = max(len(_shown(s)) for s in sources)
    return [
        f"{indent}{source.relationship:<9} {_shown(source):<{width}}  {source.transformation:<12} {source.confidence}"
        for source in sources
    ]


def render_text(explanation: Explanation) -> str:
    lines: list[str] = []
    for statement in explanation.statements:
        head = f"statement {statement.index + 1}: {statement.kind}"
        if statement.target:
            head += f" → {statement.target}"
        lines.append(head)
        for field in statement.fields:
            lines.append(f"  {field.name}")
            if not field.sources:
                lines.append("    (no column sources: a constant, or a count of rows)")
                continue
            lines.extend(_source_lines(field.sources, "    "))
        if statement.rows:
            lines.append("  (rows changed or removed)")
            lines.extend(_source_lines(statement.rows, "    "))
        for item in statement.uncertain:
            where = f"{item.field}: " if item.field else ""
            lines.append(f"  uncertain: {where}{item.reason}")
        if not statement.fields and not statement.uncertain and not statement.rows:
            lines.append("  (no output fields)")
    if not explanation.statements:
        lines.append("(no statements)")
    return "\n".join(lines) + "\n"
