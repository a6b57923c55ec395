"""Column names given by position: ``FROM (…) AS u(a, b)``, ``FROM t AS u(a, b)``, ``WITH c(a, b)``.

A name list renames its relation's columns in order.  Where the relation has a star — the unknown
columns of a table without a schema (``SELECT *`` over it) — before or at a named position, the
column a name stands for cannot be told: the star may hold any number of columns.  Renaming then
gives each such name what it may be (the star's columns, or a later column the star may push
into that position), conservatively and said; never the table's column that happens to be
spelled like the new name, which is what reading the name through the star would give.
"""

from __future__ import annotations

import re

from ...ir import AccessKind, CandidateRef, Expr, Field, FieldRef, NestedAccess, Project, Relation, field_id
from ...lineage.paths import UNKNOWN_PART
from ...ir.origin import Origin
from .context import LoweringContext


def is_star(f: Field) -> bool:
    return f.name == "*" or f.name.endswith(".*")


def stored_names(names: list[str], ctx: LoweringContext) -> list[str]:
    """The column names a derived table, CTE, view or created table gets from its query's
    output names (field trial 30).  DuckDB makes them unique — the second ``a`` becomes
    ``a_1``, the next ``a_2``, a name already taken ``a_1_1`` … compared without case, left to
    right (measured on DuckDB 2.0.1) — so ``a_1`` names that column and a CTAS writes
    ``a, a_1``.  Other dialects keep the names as they are (a reference to a duplicated one is
    then ambiguous there, or the CREATE is refused by the engine).  Stars (unknown columns)
    are left alone."""
    dialect = type(ctx.dialect).__name__.lower()
    if dialect == "sqlite":
        return _sqlite_names(names)
    if dialect != "duckdb":
        return names
    used: set[str] = set()
    out = []
    for name in names:
        if name == "*" or name.endswith(".*"):
            out.append(name)
            continue
        unique = name
        k = 0
        while unique.lower() in used:
            k += 1
            unique = f"{name}_{k}"
        used.add(unique.lower())
        out.append(unique)
    return out


def _sqlite_names(names: list[str]) -> list[str]:
    """SQLite's unique names (``sqlite3ColumnsFromExprList``, measured on SQLite 3.40): a name
    taken (without case) loses a ``:digits`` tail and gets ``:1``, then ``:2`` … counted anew for
    each column — ``a, a, "a:1"`` is ``a, a:1, a:2``, ``a, A, a`` is ``a, A:1, a:2``.  After a
    fourth try SQLite draws the number at random: such a name is left as written (a reference
    to it is then refused as ambiguous, never read as a guess)."""
    used: set[str] = set()
    out = []
    for name in names:
        if name == "*" or name.endswith(".*"):
            out.append(name)
            continue
        unique, count = name, 0
        stem = re.sub(r":[0-9]*$", "", name) if re.search(r".:[0-9]*$", name) else name
        while unique.lower() in used and count < 4:
            count += 1
            unique = f"{stem}:{count}"
        if unique.lower() in used:
            unique = name
        used.add(unique.lower())
        out.append(unique)
    return out


def needs_renaming(relation: Relation, names: list[str]) -> bool:
    """Whether a star comes at or before the last named position (so plain zipping is wrong)."""
    return any(is_star(f) for f in relation.fields[:len(names)])


def positional_candidates(fields, position: int) -> list[int]:
    """The indexes of what may stand at 0-based ``position`` past the first star: every star, and
    each later field m that lands at m - (stars before it) or later (each star may hold no
    column, or many)."""
    first = next(i for i, f in enumerate(fields) if is_star(f))
    candidates: list[int] = []
    stars_before = 0
    for m in range(first, len(fields)):
        if is_star(fields[m]):
            candidates.append(m)
            stars_before += 1
        elif m - stars_before <= position:
            candidates.append(m)
    return candidates


def rename_by_position(ctx: LoweringContext, relation: Relation, names: list[str], label: str,
                       origin: Origin | None) -> Relation:
    """``relation`` with its columns renamed by ``names`` in order, where a star comes at or
    before a named position (see the module docstring and ``renamed_columns``)."""
    project_id = ctx.ids.new("project", origin)
    exprs, columns = renamed_columns(ctx, relation.fields, names, label, origin, project_id)
    return Project(project_id, origin, relation, exprs, columns)


def renamed_columns(ctx: LoweringContext, fields: tuple[Field, ...], names: list[str], label: str,
                    origin: Origin | None, project_id: str,
                    rest: bool = True) -> tuple[tuple[Expr, ...], tuple[Field, ...]]:
    """The expressions and fields of the renaming projection: columns before the first star
    renamed exactly; each later name a candidate reference over what may stand at its position;
    then the star(s) and the columns after the first star, under their own names, for what the
    names do not cover (``rest``; a write has exactly the columns it names)."""
    first = next(i for i, f in enumerate(fields) if is_star(f))
    exprs: list[Expr] = []
    columns: list[Field] = []

    def add(name: str, expr: Expr, type_) -> None:
        exprs.append(expr)
        columns.append(Field(field_id(project_id, len(columns)), name, type_, origin))

    for position, name in enumerate(names):
        if position < first:
            f = fields[position]
            add(name, FieldRef(ctx.ids.new("col", origin), origin, f.type, f.id), f.type)
            continue
        candidates = [fields[m] for m in positional_candidates(fields, position)]
        labels = " or ".join(describe(c) for c in candidates)
        reason = (f"{name} names the column at position {position + 1} of {label}, whose columns before it are not "
                  f"all in the schema: it is {labels}, which is not known")
        add(name, candidate(ctx, candidates, reason, origin), None)
    for f in fields[first:] if rest else ():
        if not is_star(f):
            ctx.uncertain_about(
                f"{f.name} keeps its name only where the unknown columns of {label} outnumber the names given "
                f"({', '.join(names)}); otherwise one of those names renames it", f.name, origin)
        add(f.name, FieldRef(ctx.ids.new("col", origin), origin, f.type, f.id), f.type)
    return tuple(exprs), tuple(columns)


def fit_written(ctx: LoweringContext, root: Relation, names: list[str], label: str,
                exact_width: bool) -> Relation | None:
    """A write's query whose columns include a star (``INSERT INTO t SELECT *, now() FROM s``, s
    without a schema) projected onto the ``names`` written, by position.  Where the engine needs
    as many values as names (``exact_width``) and there is one star, its width follows: the names
    before it and after it are exact, the ones it covers are its unknown columns.  Otherwise
    (several stars; Postgres, whose INSERT may give fewer values) each name from the first star on
    is a candidate over what may stand there.  ``None``: the names cannot be filled (fewer names
    than the query's known columns need)."""
    fields = root.fields
    stars = [i for i, f in enumerate(fields) if is_star(f)]
    origin = root.origin
    project_id = ctx.ids.new("project", origin)
    if exact_width and len(stars) == 1:
        width = len(names) - (len(fields) - 1)
        if width < 1:
            return None
        star = stars[0]
        plan = list(fields[:star]) + [fields[star]] * width + list(fields[star + 1:])
        exprs = tuple(FieldRef(ctx.ids.new("col", origin), origin, f.type, f.id) for f in plan)
        columns = tuple(Field(field_id(project_id, i), name, None if is_star(f) else f.type, origin)
                        for i, (name, f) in enumerate(zip(names, plan)))
        return Project(project_id, origin, root, exprs, columns)
    if len(fields) - len(stars) > len(names):
        return None
    exprs, columns = renamed_columns(ctx, fields, names, label, origin, project_id, rest=False)
    return Project(project_id, origin, root, exprs, columns)


def describe(f) -> str:
    """How a reason names a candidate: a star as the columns it stands for."""
    if f.name == "*":
        return "one of the columns * stands for"
    if f.name.endswith(".*"):
        return f"one of the columns of {f.name[:-2]}"
    return f.name


def candidate(ctx: LoweringContext, candidates: list[Field], reason: str, origin: Origin | None) -> Expr:
    """One of ``candidates``, which one not known.  Sealed where a star is among them: a name or
    path read below it (``r:a``) is a part of that unknown column, never the star's column
    spelled like the path's first key."""
    ref = CandidateRef(ctx.ids.new("col", origin), origin, None, tuple(c.id for c in candidates), reason)
    if not any(is_star(c) for c in candidates):
        return ref
    return NestedAccess(ctx.ids.new("access", origin), origin, None, ref, (UNKNOWN_PART,), AccessKind.COLUMN,
                        False, reason)
