"""Governance answers rendered for people (the CLI's ``-o text``).

Each rendering prints the direction and depth applied, each mark's recording status from the
answer ("not reported" when it carries none), and, for every parsed edge, its evidence: the
file that holds the statement and the pipeline or view whose SQL read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..terminal import printable
from .statuses import LINE_STYLE, Mark

if TYPE_CHECKING:  # the renderings read attributes only: the store's answers (no pydantic) render too
    from .answers import ExplorerAnswer, ImpactAnswer

_INDENT = "  "


def render_marks(marks: dict[str, str] | None) -> str:
    if not marks:
        return "marks: not reported"
    parts = [f"{mark} ({LINE_STYLE[Mark(mark)]} line) {status}" if mark in LINE_STYLE else f"{mark} {status}"
             for mark, status in marks.items()]
    return "marks: " + "; ".join(parts)


def render_explorer(answer: ExplorerAnswer) -> str:
    lines = [
        f"lineage of {answer.asset} in {answer.project}/{answer.environment} ({answer.environment_status})",
        f"direction {answer.direction}, depth {answer.depth} (as applied)",
        render_marks(answer.marks),
    ]
    if answer.environment_status != "computed":
        lines += ["", *answer.notes]
        return "\n".join(lines) + "\n"
    lines.append(f"cut, holds {answer.holds}" if answer.cut else f"holds {answer.holds}")
    names = {node.id: node.name for node in answer.assets}
    width = max((len(node.name) for node in answer.assets), default=0)
    lines += ["", "assets"]
    for node in answer.assets:
        lines.append(f"{_INDENT}{node.name.ljust(width)}  {node.kind:<5}  {_stewardship(node)}"
                     f"  (hop {node.distance})")
        if node.sql_status is not None:
            lines.append(f"{_INDENT * 3}{node.sql_status}: reads at least what is drawn")
        if node.sql_read_from is not None:
            lines.append(f"{_INDENT * 3}SQL read from {node.sql_read_from}")
        if node.note is not None:
            lines.append(f"{_INDENT * 3}{node.note}")
        for note in node.notes:
            lines.append(f"{_INDENT * 3}{note}")
    lines += ["", "edges (one row per edge and mark)"]
    if not answer.edges:
        lines.append(f"{_INDENT}none")
    for edge in answer.edges:
        arrow = f"{names.get(edge.source, edge.source_name)} -> {names.get(edge.target, edge.target_name)}"
        if edge.mark == "observed":
            run = f" (run {edge.run_id})" if getattr(edge, "run_id", None) else ""
            # The job and run come from the events a producer sent: printed safely.
            lines.append(f"{_INDENT}{arrow}  {edge.mark} ({edge.line})  seen in a {edge.via} of "
                         f"{printable(edge.file)}{printable(run)}  at {getattr(edge, 'seen_at', None)}")
        else:
            lines.append(f"{_INDENT}{arrow}  {edge.mark} ({edge.line})  by the {edge.via}'s "
                         f"{'SQL' if edge.mark == 'parsed' else 'declaration'}  in {edge.file}"
                         + (f"  read at {edge.revision}" if getattr(edge, "revision", None) else ""))
        for column in edge.columns or ():
            lines.append(f"{_INDENT * 3}{column.source} -> {column.target}  {column.relationship}"
                         f"  {column.transformation}  {column.confidence}")
        if edge.note is not None:
            lines.append(f"{_INDENT * 3}{edge.note}")
    if answer.notes:
        lines += ["", "notes"] + [f"{_INDENT}{note}" for note in answer.notes]
    return "\n".join(lines) + "\n"


def render_impact(answer: ImpactAnswer) -> str:
    count = f"at least {answer.count}" if answer.at_least else str(answer.count)
    lines = [
        f"impact of {answer.asset} in {answer.project}/{answer.environment} ({answer.environment_status})",
        "direction downstream, any depth (as applied)",
        render_marks(answer.marks),
    ]
    if answer.environment_status != "computed":
        lines += ["", *answer.notes]
        return "\n".join(lines) + "\n"
    lines.append(f"{count} asset{'s' if answer.count != 1 or answer.at_least else ''} downstream")
    width = max((len(a.name) for a in answer.assets), default=0)
    for kind in dict.fromkeys(a.kind for a in answer.assets):
        lines += ["", f"{kind}s ({answer.by_kind[kind]})"]
        for asset in (a for a in answer.assets if a.kind == kind):
            status = f"  ({asset.sql_status})" if asset.sql_status else ""
            lines.append(f"{_INDENT}{asset.name.ljust(width)}  {_stewardship(asset)}{status}")
    if answer.notes:
        lines += ["", "notes"] + [f"{_INDENT}{note}" for note in answer.notes]
    return "\n".join(lines) + "\n"


def _stewardship(asset) -> str:
    certified = "certified" if asset.certified else "not certified"
    return f"owner {asset.owner or '-'}  steward {asset.steward or '-'}  {certified}"


def render_review(answer) -> str:
    """The review gate's answer: what waits, why (columns counted, never named), and Impact."""
    lines = [f"review of a change ({answer.state}), read in environment {answer.environment}"]
    held_here = answer.environments_held_for_review
    if held_here:
        lines.append(f"held for review until a person approves the move: {', '.join(held_here)}")
    if not answer.waits_for_approval:
        if not held_here:
            lines.append("nothing waits for approval")
        else:
            lines.append("no change to a certified table waits for approval")
            lines.append(f"lineage not computed while held: {', '.join(answer.environments_not_computed)}")
        lines += answer.notes
        return "\n".join(lines) + "\n"
    lines.append("waits for approval:")
    for held in answer.held:
        where = f" (environment {held.environment}'s patch)" if held.environment else ""
        lines.append(f"{_INDENT}{held.table}{where} in {held.file}: {held.reason}")
    if answer.environments_not_computed:
        lines.append(f"lineage not computed while held: {', '.join(answer.environments_not_computed)}")
    for section in answer.impact:
        lines += ["", f"impact of {section.table}"]
        if section.sentence is not None:
            lines.append(f"{_INDENT}{section.sentence}")
            continue
        count = f"at least {section.count}" if section.at_least else str(section.count)
        lines.append(f"{_INDENT}{count} asset{'s' if section.count != 1 or section.at_least else ''} downstream")
        for kind in dict.fromkeys(a.kind for a in section.assets):
            lines.append(f"{_INDENT}{kind}s ({section.by_kind[kind]})")
            for asset in (a for a in section.assets if a.kind == kind):
                lines.append(f"{_INDENT * 2}{asset.name}  {_stewardship(asset)}")
        lines += [f"{_INDENT}{note}" for note in section.notes]
    lines += answer.notes
    return "\n".join(lines) + "\n"
