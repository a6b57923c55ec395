"""Governance answers rendered for people (the CLI's ``-o text``).

Each rendering prints the direction and depth applied, each mark's recording status from the
answer ("not reported" when it carries none), and, for every parsed edge, its evidence: the
file that holds the statement and the pipeline or view whose SQL read it.  Edges are grouped per
pair of assets, one entry per mark; a parsed edge's columns are a small table of its value
lineage, then each indirect kind once with the source columns it reads (issue 10 item 9).  The
JSON keeps every row; a terminal draws no line, so the marks are said in words only.

Names, owners, stewards, files, columns and notes come from a project's files: every one is
printed through ``terminal.printable``, so a control character in them (an escape sequence, a
newline forging a line) is shown escaped, never sent to the terminal.  JSON needs none of this.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the store's read path)

from ..terminal import printable as _p
from .statuses import LINE_STYLE, Mark

if TYPE_CHECKING:  # the renderings read attributes only: the store's answers (no pydantic) render too
    from .answers import ExplorerAnswer, ImpactAnswer

_INDENT = "  "


def render_marks(marks: dict[str, str] | None) -> str:
    # A terminal draws no line: each mark is said by its word (the JSON keeps ``line``).
    if not marks:
        return "marks: not reported"
    return "marks: " + "; ".join(f"{_p(mark)} {_p(status)}" for mark, status in marks.items())


def _where(answer) -> str:
    return f"{_p(answer.asset)} in {_p(answer.project)}/{_p(answer.environment)} ({_p(answer.environment_status)})"


# The indirect relationships, in the engine's order, as a steward reads them of a source column.
_INDIRECT = {"grouping": "groups by", "control": "filters", "join": "joins on", "window": "windows by",
             "sort": "sorts by", "policy": "a policy reads", "quality": "a quality check reads"}


def render_explorer(answer: ExplorerAnswer) -> str:
    lines = [
        f"lineage of {_where(answer)}",
        f"direction {_p(answer.direction)}, depth {answer.depth} (as applied)",
        render_marks(answer.marks),
    ]
    if answer.environment_status != "computed":
        lines += ["", *map(_p, answer.notes)]
        return "\n".join(lines) + "\n"
    shown = f"{answer.holds} asset{'s' if answer.holds != 1 else ''} shown"
    lines.append(f"{shown}, more were reached (cut)" if answer.cut else shown)
    names = {node.id: _p(node.name) for node in answer.assets}
    width = max((len(name) for name in names.values()), default=0)
    lines += ["", "assets"]
    for node in answer.assets:
        lines.append(f"{_INDENT}{names[node.id].ljust(width)}  {_p(node.kind):<5}  {_stewardship(node)}"
                     f"  (hop {node.distance})")
        if node.sql_status is not None:
            lines.append(f"{_INDENT * 3}{_p(node.sql_status)}: reads at least what is drawn")
        if node.sql_read_from is not None:
            lines.append(f"{_INDENT * 3}SQL read from {_p(node.sql_read_from)}")
        if node.note is not None:
            lines.append(f"{_INDENT * 3}{_p(node.note)}")
        for note in getattr(node, "notes", ()):
            lines.append(f"{_INDENT * 3}{_p(note)}")
    lines += ["", "edges"]
    if not answer.edges:
        lines.append(f"{_INDENT}none")
    pair = None
    for edge in answer.edges:
        # Edges come ordered by (from, to, mark, …): one heading per pair, one entry per mark.
        if (edge.source, edge.target) != pair:
            pair = (edge.source, edge.target)
            lines.append(f"{_INDENT}{names.get(edge.source) or _p(edge.source_name)} -> "
                         f"{names.get(edge.target) or _p(edge.target_name)}")
        lines.append(_INDENT * 2 + _how(edge))
        lines += _columns(edge.columns)
        if edge.note is not None:
            lines.append(f"{_INDENT * 4}{_p(edge.note)}")
    if answer.notes:
        lines += ["", "notes"] + [f"{_INDENT}{_p(note)}" for note in answer.notes]
    return "\n".join(lines) + "\n"


def _how(edge) -> str:
    """How an edge is known, with its evidence: the file (and the job and run of an observed one)."""
    if edge.mark == "observed":
        run = f" (run {edge.run_id})" if getattr(edge, "run_id", None) else ""
        # The job and run come from the events a producer sent: printed safely.
        return (f"{_p(edge.mark):<9} seen in a {_p(edge.via)} of {_p(edge.file)}{_p(run)} at "
                f"{_p(str(getattr(edge, 'seen_at', None)))}")
    what = "SQL" if edge.mark == "parsed" else "declaration"
    revision = f", read at {_p(edge.revision)}" if getattr(edge, "revision", None) else ""
    return f"{_p(edge.mark):<9} by the {_p(edge.via)}'s {what} in {_p(edge.file)}{revision}"


def _columns(columns) -> list[str]:
    """An edge's column detail as a small table: value lineage first, one row per link (column,
    from, transformation, confidence); then each indirect kind once, naming its source columns
    (``filters: status; groups by: customer_id``) instead of a row per target column."""
    if not columns:
        return []
    value = [c for c in columns if c.relationship == "value"]
    lines = []
    if value:
        rows = [("column", "from", "transformation", "confidence")]
        rows += [(_p(c.target), _p(c.source), _p(c.transformation), _p(c.confidence)) for c in value]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            lines.append(_INDENT * 4 + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3]))
                         + "  " + row[3])
    indirect: dict[str, dict[str, str]] = {}
    for column in columns:
        if column.relationship == "value":
            continue
        kind = indirect.setdefault(column.relationship, {})
        # One entry per source column, at its weakest confidence over the target columns.
        kind[column.source] = _weaker(kind.get(column.source), column.confidence)
    parts = []
    for relationship in sorted(indirect, key=lambda r: (list(_INDIRECT).index(r) if r in _INDIRECT else 99, r)):
        said = ", ".join(_p(source) + ("" if confidence == "exact" else f" ({_p(confidence)})")
                         for source, confidence in indirect[relationship].items())
        parts.append(f"{_INDIRECT.get(relationship, _p(relationship))}: {said}")
    if parts:
        lines.append(_INDENT * 4 + "; ".join(parts))
    return lines


_CONFIDENCE_ORDER = {"exact": 0, "conservative": 1, "unknown": 2}


def _weaker(a: str | None, b: str) -> str:
    if a is None:
        return b
    return a if _CONFIDENCE_ORDER.get(a, 3) >= _CONFIDENCE_ORDER.get(b, 3) else b


def render_impact(answer: ImpactAnswer) -> str:
    count = f"at least {answer.count}" if answer.at_least else str(answer.count)
    lines = [
        f"impact of {_where(answer)}",
        "direction downstream, any depth (as applied)",
        render_marks(answer.marks),
    ]
    if answer.environment_status != "computed":
        lines += ["", *map(_p, answer.notes)]
        return "\n".join(lines) + "\n"
    lines.append(f"{count} asset{'s' if answer.count != 1 else ''} downstream")
    width = max((len(_p(a.name)) for a in answer.assets), default=0)
    for kind in dict.fromkeys(a.kind for a in answer.assets):
        lines += ["", f"{_p(kind)}s ({answer.by_kind[kind]})"]
        for asset in (a for a in answer.assets if a.kind == kind):
            status = f"  ({_p(asset.sql_status)})" if asset.sql_status else ""
            lines.append(f"{_INDENT}{_p(asset.name).ljust(width)}  {_stewardship(asset)}{status}")
    if answer.notes:
        lines += ["", "notes"] + [f"{_INDENT}{_p(note)}" for note in answer.notes]
    return "\n".join(lines) + "\n"


def _stewardship(asset) -> str:
    certified = "certified" if asset.certified else "not certified"
    return f"owner {_p(asset.owner or '-')}  steward {_p(asset.steward or '-')}  {certified}"


def _names(names) -> str:
    return ", ".join(_p(name) for name in names)


def render_review(answer) -> str:
    """The review gate's answer: what waits, why (the columns counted and named), and Impact with
    the downstream columns that read each changed column."""
    lines = [f"review of a change ({_p(answer.state)}), read in environment {_p(answer.environment)}"]
    held_here = answer.environments_held_for_review
    if held_here:
        lines.append(f"held for review until a person approves the move: {_names(held_here)}")
    if not answer.waits_for_approval:
        if not held_here:
            lines.append("nothing waits for approval")
        else:
            lines.append("no change to a certified table waits for approval")
            lines.append(f"lineage not computed while held: {_names(answer.environments_not_computed)}")
        lines += map(_p, answer.notes)
        return "\n".join(lines) + "\n"
    lines.append("waits for approval:")
    for held in answer.held:
        where = f" (environment {_p(held.environment)}'s patch)" if held.environment else ""
        lines.append(f"{_INDENT}{_p(held.table)}{where} in {_p(held.file)}: {_p(held.reason)}")
    if not answer.held:
        lines.append(f"{_INDENT}(no change you may see)")
    if answer.environments_not_computed:
        lines.append(f"lineage not computed while held: {_names(answer.environments_not_computed)}")
    for section in answer.impact:
        lines += ["", f"impact of {_p(section.table)}"]
        if section.sentence is not None:
            lines.append(f"{_INDENT}{_p(section.sentence)}")
            continue
        count = f"at least {section.count}" if section.at_least else str(section.count)
        lines.append(f"{_INDENT}{count} asset{'s' if section.count != 1 else ''} downstream")
        for kind in dict.fromkeys(a.kind for a in section.assets):
            lines.append(f"{_INDENT}{_p(kind)}s ({section.by_kind[kind]})")
            for asset in (a for a in section.assets if a.kind == kind):
                lines.append(f"{_INDENT * 2}{_p(asset.name)}  {_stewardship(asset)}")
        columns = getattr(section, "columns", None) or ()
        if columns:
            lines.append(f"{_INDENT}columns the change touches, and the downstream columns that read them:")
        for column in columns:
            readers = _names(column.read_by) if column.read_by else "none traced"
            lines.append(f"{_INDENT * 2}{_p(column.column)} ({_p(column.change)}): {readers}")
        lines += [f"{_INDENT}{_p(note)}" for note in section.notes]
    lines += map(_p, answer.notes)
    return "\n".join(lines) + "\n"
