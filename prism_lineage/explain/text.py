"""``--format text``: a readable tree per field, like EXPLAIN output."""

from __future__ import annotations

from .models import Explanation


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
            width = max(len(s.column) for s in field.sources)
            for source in field.sources:
                lines.append(
                    f"    {source.relationship:<9} {source.column:<{width}}  {source.transformation:<12}"
                    f" {source.confidence}"
                )
        for item in statement.uncertain:
            where = f"{item.field}: " if item.field else ""
            lines.append(f"  uncertain: {where}{item.reason}")
        if not statement.fields and not statement.uncertain:
            lines.append("  (no output fields)")
    return "\n".join(lines) + "\n"
