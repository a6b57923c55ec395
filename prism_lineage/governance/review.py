"""The certified-table review gate: which changes to a project wait for approval, and what is
downstream of the tables they touch.

Two versions of a project are compared (two directories, e.g. two git checkouts), native or
dbt (``review_dbt.py``: two manifests).  For a native project:

* a change to a table's own file waits when the table is certified and the change removes,
  renames or retypes a column the file declares, deletes the file, or changes the namespace or
  the name the file declares.  Adding a column does not wait — except while it cannot be told
  whether the table is certified (its file, or an environment's patch file, cannot be read),
  when it waits too.  A column added inside a nested type reads as that column retyped (its
  type changes); a column renamed in a file that gives its columns no ids reads as removed;
* an environment's own patch of a table waits when it changes the table's schema, namespace or
  name in any way and the table is certified in that environment.

Columns are matched by id when both versions of the file give ids, else by name.  The reason
names each column it counts, and Impact lists, for each, the downstream columns that read it
(column-level impact from the parsed edges' column detail).  A change to
a column's required flag or doc, to a table's doc, column order, or the adding or dropping of
ids is not escalated (the seed lists these as not built).

Impact, under the diff, is what the explorer says as the viewer, in the environment's lineage
as it stands (the change is not applied while it waits): at most five tables, then how many
more the change names.  It decides nothing.

Apart from the change set's rules, an environment that reviews holds whatever the change brings
it until a person approves its move (``transitions.py``); the answer names those environments,
which are not computed while they hold it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from .access import LINEAGE_READ, Viewer
from .declarations import Column, Project, Table, View
from .errors import ProjectError
from .impact import impact
from .native import is_native_project, load_native, read_native
from .rollup import environment_of, sync
from .sql_reading import top_level
from .transitions import held_environments
from .statuses import NO_COLUMN_ANSWER_NOTE, NOT_VISIBLE  # noqa: F401  (NOT_VISIBLE: documented sibling)

SHOWN_TABLES = 5
WAITS_SENTENCE = "The change still waits for an approver."
HIDDEN_SENTENCE = "Impact is not shown: this table is not one you may see."
UNREADABLE_SENTENCE = "Impact cannot be read for this table."
HIDDEN_CHANGE_NOTE = "A change you may not see waits for approval."
UNREADABLE_PROJECT_REASON = ("cannot tell whether the tables it declares are certified: the proposed version cannot "
                             "be read as a project")
CHANGE_SET_STATES = ("draft", "proposed", "approved", "ended")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class ColumnChange(_Model):
    """A column of the base version that a change removes, renames or retypes."""

    change: str  # "removed", "renamed" or "retyped"
    column: str  # its name in the base version
    to: str | None = None  # renamed: the new name; retyped: the new type
    was: str | None = None  # retyped: the type it had


class HeldChange(_Model):
    """A change that waits for approval, the reason (naming the columns it removes, renames or
    retypes), and those columns."""

    table: str
    file: str
    environment: str | None  # None: the table's own file; else the environment whose patch changed
    reason: str
    columns: list[ColumnChange] = []


class ColumnImpact(_Model):
    """A changed column and the downstream columns that read it (``asset.column``, visible only),
    transitively through the parsed edges' column detail."""

    column: str
    change: str
    read_by: list[str]


class ImpactAssetRow(_Model):
    name: str
    kind: str
    owner: str | None
    steward: str | None
    certified: bool


class ImpactSection(_Model):
    table: str
    environment: str
    read_in_other_environment: bool  # an environment's patch read in that environment, not yours
    explorer_link: bool  # only a table of the environment you are in links into the explorer
    sentence: str | None  # when impact cannot be read or the table is not one you may see
    count: int | None = None
    at_least: bool = False
    by_kind: dict[str, int] = {}
    assets: list[ImpactAssetRow] = []
    columns: list[ColumnImpact] = []  # column-level impact of the columns the change removes, renames, retypes
    notes: list[str] = []


class ReviewAnswer(_Model):
    environment: str
    state: str
    waits_for_approval: bool
    held: list[HeldChange]
    environments_held_for_review: list[str]  # environments that review and that the change alters
    environments_not_computed: list[str]
    impact: list[ImpactSection]
    more: int  # tables the change names beyond those shown
    notes: list[str]

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent)


@dataclass(frozen=True, slots=True)
class _ColumnChanges:
    """What changes between two column lists, each column named (``changed`` in column order)."""

    changed: tuple[ColumnChange, ...] = ()
    added: int = 0

    def _count(self, change: str) -> int:
        return sum(1 for c in self.changed if c.change == change)

    @property
    def removed(self) -> int:
        return self._count("removed")

    @property
    def renamed(self) -> int:
        return self._count("renamed")

    @property
    def retyped(self) -> int:
        return self._count("retyped")

    @property
    def breaking(self) -> bool:
        return bool(self.changed)


def review(base_dir: str | Path, proposed_dir: str | Path, viewer: Viewer, environment: str | None = None,
           state: str = "proposed") -> ReviewAnswer:
    if state not in CHANGE_SET_STATES:
        from ..errors import UsageError

        raise UsageError(f"unknown change set state '{state}' (one of {', '.join(CHANGE_SET_STATES)})")
    viewer.require(LINEAGE_READ)
    if is_native_project(Path(base_dir)):
        base_project, proposed_project, held, notes = _native_review(Path(base_dir), Path(proposed_dir))
    else:
        from .review_dbt import dbt_review

        base_project, proposed_project, held, notes = dbt_review(Path(base_dir), Path(proposed_dir))
    env = environment_of(base_project, environment)
    # What the reader is told of a change is filtered like every other answer: a change to a
    # table they may not see is neither named nor counted, its file is not named; that one
    # waits at all is said once, in words.  Whether the change waits never depends on who asks.
    shown = [h for h in held if _sees_change(viewer, h, env.name)]
    tables = list(dict.fromkeys((h.table, h.environment or env.name) for h in shown))
    sections = [_impact_section(base_project, name, where, env.name, viewer, state,
                                [c for h in shown if (h.table, h.environment or env.name) == (name, where)
                                 for c in h.columns])
                for name, where in tables[:SHOWN_TABLES]]
    if proposed_project is not None:
        held_here = held_environments(base_project, proposed_project)
    else:  # what the change brings cannot be read: every environment that reviews holds it
        held_here = [e.name for e in base_project.environments if e.reviews]
    # Only an environment that reviews holds a change (an environment that does not review takes
    # it without an approval and stays computed): those are the ones not computed (item 10).
    touched = sorted(set(held_here))
    if len(tables) > SHOWN_TABLES:
        notes.append(f"and {len(tables) - SHOWN_TABLES} more")
    if len(shown) < len(held):
        notes.append(HIDDEN_CHANGE_NOTE)
    return ReviewAnswer(environment=env.name, state=state, waits_for_approval=bool(held), held=shown,
                        environments_held_for_review=held_here, environments_not_computed=touched, impact=sections,
                        more=max(0, len(tables) - SHOWN_TABLES), notes=notes)


def _sees_change(viewer: Viewer, change: HeldChange, environment: str) -> bool:
    """A change is shown to a viewer who may see its table: in the patch's environment for an
    environment's patch, in the environment the review is read in for the table's own file.  A
    change to no one table (``*``: a file that cannot be read) is shown to everyone."""
    return change.table == "*" or viewer.sees(change.environment or environment, change.table)


def _native_review(base_dir: Path, proposed_dir: Path) -> tuple[Project, Project | None, list[HeldChange], list[str]]:
    """Both versions of a native project (the proposed one read leniently: an unreadable file is
    a change), and the changes that wait.  The base must be readable (it is the approved
    version); whatever of the proposed version cannot be read waits, with the reason."""
    base_project, _, _ = load_native(base_dir)
    base = read_native(base_dir)
    from .dbt import is_dbt_project

    if not is_native_project(proposed_dir) and is_dbt_project(proposed_dir):
        raise ProjectError(f"{proposed_dir} is not a native project (no project.yaml), but its base is")
    try:
        proposed = read_native(proposed_dir, strict=False)
    except ProjectError:
        # Not even its settings can be read (project.yaml missing, unreadable or refused): no
        # table's certification can be told.  The reason names no file, since it is shown to
        # every credential and the file could be a hidden table's.
        return base_project, None, [HeldChange(table="*", file="project.yaml", environment=None,
                                               reason=UNREADABLE_PROJECT_REASON)], []
    try:
        proposed_project, _, _ = load_native(proposed.root, strict=False)
    except ProjectError:
        proposed_project = None
    held = _file_changes(base, proposed, base_project, proposed_project) + _patch_changes(base, proposed, base_project)
    return base_project, proposed_project, held, []


def _certified_somewhere(project, full_name: str) -> bool:
    return any(t.certified for e in project.environments for t in e.tables if t.full_name == full_name)


def _file_changes(base, proposed, base_project, proposed_project) -> list[HeldChange]:
    held = []
    new_files = {table.file: table for _, table in proposed.declarations["tables"]}
    for _, table in base.declarations["tables"]:
        certified = _certified_somewhere(base_project, table.full_name) or (
            proposed_project is not None and _certified_somewhere(proposed_project, table.full_name))
        if table.file in proposed.unreadable or proposed_project is None:
            reason = "cannot tell whether the table is certified: its file cannot be read"
            held.append(HeldChange(table=table.full_name, file=table.file, environment=None, reason=reason))
            continue
        new = new_files.get(table.file)
        if new is None:
            if certified:
                held.append(HeldChange(table=table.full_name, file=table.file, environment=None,
                                       reason="deletes the file of a certified table"))
            continue
        reasons = breaking_reasons(table, new)
        if certified and reasons:
            held.append(HeldChange(table=table.full_name, file=table.file, environment=None,
                                   reason=f"{'; '.join(reasons)} of a certified table",
                                   columns=list(column_changes(table.columns, new.columns).changed)))
    return held


def breaking_reasons(before: Table | View, after: Table | View, *, columns: tuple[tuple[Column, ...], tuple[Column, ...]] | None
                     = None) -> list[str]:
    """What a change from ``before`` to ``after`` breaks: the namespace or name, and the columns
    removed, renamed or retyped (counted and named).  ``columns``: the two column lists to
    compare, when they are not the declarations' own."""
    reasons = []
    if (after.namespace, after.name) != (before.namespace, before.name):
        reasons.append("changes the namespace or the name the file declares")
    old, new = columns if columns is not None else (before.columns, after.columns)
    return reasons + _counted(column_changes(old, new))


def _patch_changes(base, proposed, base_project) -> list[HeldChange]:
    held = []
    for env in base_project.environments:
        file = f"environments/{env.name}.yaml"
        if file in proposed.unreadable:
            held.append(HeldChange(table="*", file=file, environment=env.name,
                                   reason="cannot tell whether the tables it patches are certified: "
                                          "the file cannot be read"))
            continue
        before = (base.patches.get(env.name) or {}).get("patches") or {}
        after = (proposed.patches.get(env.name) or {}).get("patches") or {}
        for name in sorted(set(before) | set(after)):
            old, new = before.get(name) or {}, after.get(name) or {}
            if all(old.get(k) == new.get(k) for k in ("columns", "namespace", "name")):
                continue
            table = next((t for t in env.tables if t.full_name == name), None)
            certified = bool(table and table.certified) or bool(new.get("certified"))
            if certified:
                held.append(HeldChange(table=name, file=file, environment=env.name,
                                       reason="an environment's patch changes the schema, namespace or name "
                                              "of a table certified in that environment"))
    return held


def column_changes(before: tuple[Column, ...], after: tuple[Column, ...]) -> _ColumnChanges:
    """Removed, renamed, retyped and added columns; by id when both sides give ids, else by name
    (so a rename in a file without ids reads as a removal, and an addition)."""
    by_id = all(c.id is not None for c in before) and all(c.id is not None for c in after) and before and after
    key = (lambda c: c.id) if by_id else (lambda c: c.name)
    old = {key(c): c for c in before}
    new = {key(c): c for c in after}
    changed = []
    for k, column in old.items():
        if k not in new:
            changed.append(ColumnChange(change="removed", column=column.name))
            continue
        if column.name != new[k].name:
            changed.append(ColumnChange(change="renamed", column=column.name, to=new[k].name))
        if _type(column) != _type(new[k]):
            changed.append(ColumnChange(change="retyped", column=column.name, to=new[k].type, was=column.type))
    added = sum(1 for k in new if k not in old)
    return _ColumnChanges(tuple(changed), added)


def _type(column: Column) -> str | None:
    return " ".join(column.type.split()).lower() if column.type else None


def _counted(changes: _ColumnChanges) -> list[str]:
    """``removes 2 columns (amount, status)``, ``renames 1 column (id to order_id)``, ``retypes 1
    column (order_date: date to timestamp)``: counted and named (issue 10 item 10)."""
    parts = []
    for change, verb in (("removed", "removes"), ("renamed", "renames"), ("retyped", "retypes")):
        found = [c for c in changes.changed if c.change == change]
        if found:
            named = ", ".join(_named(c) for c in found)
            parts.append(f"{verb} {len(found)} column{'s' if len(found) != 1 else ''} ({named})")
    return parts


def _named(change: ColumnChange) -> str:
    if change.change == "renamed":
        return f"{change.column} to {change.to}"
    if change.change == "retyped":
        return f"{change.column}: {change.was or 'no type'} to {change.to or 'no type'}"
    return change.column


def _impact_section(project, table: str, where: str, here: str, viewer: Viewer, state: str,
                    changed: list[ColumnChange] = ()) -> ImpactSection:
    other = where != here
    waits = [WAITS_SENTENCE] if state == "proposed" else []
    try:
        lineage = sync(project, where)
        asset_id = lineage.by_name.get(table)
        if asset_id is None:
            raise LookupError(table)
        if not lineage.visible(viewer, asset_id):
            return ImpactSection(table=table, environment=where, read_in_other_environment=other,
                                 explorer_link=False, sentence=" ".join([HIDDEN_SENTENCE, *waits]))
        answer = impact(lineage, viewer, table)
    except (LookupError, ProjectError):
        return ImpactSection(table=table, environment=where, read_in_other_environment=other, explorer_link=False,
                             sentence=" ".join([UNREADABLE_SENTENCE, *waits]))
    held = {lineage.by_name[table]} | {a.id for a in answer.assets}
    notes = list(answer.notes)
    if any(e.columns is not None and not e.columns for e in lineage.edges if e.source in held and e.target in held):
        notes.insert(0, NO_COLUMN_ANSWER_NOTE)
    if other:
        notes.insert(0, f"Read in environment {where}, not the one you are in.")
    return ImpactSection(
        table=table, environment=where, read_in_other_environment=other, explorer_link=not other, sentence=None,
        count=answer.count, at_least=answer.at_least, by_kind=answer.by_kind,
        assets=[ImpactAssetRow(name=a.name, kind=a.kind, owner=a.owner, steward=a.steward, certified=a.certified)
                for a in answer.assets],
        columns=column_impact(lineage.for_viewer(viewer), viewer, lineage.by_name[table], changed),
        notes=notes,
    )


def column_impact(lineage, viewer: Viewer, start: str, changed) -> list[ColumnImpact]:
    """For each changed column of the asset ``start``, the downstream columns that read it: a
    parsed edge's column link from it (or from ``*``, a star whose columns are not known, which
    may read it) reaches ``target.column``, and so on transitively; only over assets the viewer
    sees (as every walk).  Declared edges carry no columns, so a reader known only by
    declaration is in the impact list but not here."""
    out: dict[str, list] = {}
    for change in changed:
        if change.column in out:
            continue
        seen: set[tuple[str, str]] = set()
        frontier = [(start, change.column.lower())]
        found: dict[str, None] = {}
        while frontier:
            asset, column = frontier.pop()
            for edge in lineage.edges:
                if edge.source != asset or edge.columns is None or not lineage.visible(viewer, edge.target):
                    continue
                for link in edge.columns:
                    source = link.source.lower()
                    if source != column and top_level(source) != column and source != "*":
                        continue
                    step = (edge.target, link.target.lower())
                    if step in seen:
                        continue
                    seen.add(step)
                    found[f"{lineage.assets[edge.target].full_name}.{link.target}"] = None
                    frontier.append(step)
        out[change.column] = [change.change, sorted(found)]
    return [ColumnImpact(column=column, change=change, read_by=read_by) for column, (change, read_by) in out.items()]


__all__ = ["review", "column_changes", "column_impact", "breaking_reasons", "ColumnChange", "ColumnImpact", "HeldChange",
           "ReviewAnswer", "Table"]
