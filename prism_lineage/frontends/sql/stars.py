"""Stars outside a select list's own items: ``*`` and ``t.*`` as function arguments
(Snowflake ``OBJECT_CONSTRUCT(*)``, ``HASH(*)``, ``HASH_AGG(*)``, ``ARRAY_CONSTRUCT(*)``) and
DuckDB's ``COLUMNS(...)`` star expressions.

``*`` inside a function stands for every column of the FROM clause (``t.*``: of ``t``), in the
order ``SELECT *`` gives them: the function reads each one.  Only ``COUNT(*)`` counts rows
and reads no column (its aggregate keeps ``star``).  Over a table whose columns are not in
the schema, the star reads that table's unknown columns (``t.*``, confidence unknown, an
``uncertain`` entry) — never nothing, which would claim the function reads no column.

``COLUMNS(pattern)`` is rules in specs/project.md ("COLUMNS star expressions").
"""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import InvalidStatementError, UnknownColumnError, UnknownTableError
from ...ir import Expr, Field, FieldRef, Origin
from .parsing import WITHOUT_COLUMNS

if TYPE_CHECKING:
    from .expressions import ExpressionLowerer, Mode

# Aggregates whose ``*`` counts rows and reads no column.
COUNTING = frozenset({"count", "count_star"})


def is_star(node: exp.Expression) -> bool:
    """``*`` or ``t.*`` (with or without EXCLUDE/REPLACE/RENAME)."""
    return isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star))


def star_entries(star_node: exp.Expression, lowerer: "ExpressionLowerer", where: str
                 ) -> tuple[list[tuple[str, object]], dict[str, exp.Expression], Origin | None]:
    """The (name, target) pairs a star stands for, in ``SELECT *`` order, without the columns
    its EXCLUDE names; the REPLACE expressions by lower-case name; and the star's origin.
    ``where`` names the construct in messages (``HASH(*)``)."""
    ctx, scope, norm = lowerer.ctx, lowerer.scope, lowerer.ctx.normalizer
    if isinstance(star_node, exp.Column):
        star = star_node.this
        origin = ctx.join(ctx.origin(star_node.args.get("table")), ctx.origin(star))
        qualifier = tuple(norm.part(p) for p in star_node.parts[:-1])
        source = scope.source(qualifier)
        if source is None:
            raise UnknownTableError(".".join(qualifier), scope.aliases(), origin)
        entries = list(source.star_items())
    else:
        star = star_node
        origin = ctx.origin(star)
        if not scope.sources:
            raise InvalidStatementError(f"the * of {where} needs a FROM clause", origin=origin)
        entries = list(scope.star_columns())
    keep = star_filter(star, where, origin)
    entries = [(n, t) for n, t in entries if keep is None or keep(n)]
    entries = exclude(star, entries, lowerer.ctx, scope, where, origin)
    replaced: dict[str, exp.Expression] = {}
    for alias in star.args.get("replace") or []:
        if not isinstance(alias, exp.Alias) or alias.args.get("alias") is None:
            raise InvalidStatementError(f"a REPLACE item of the * of {where} needs 'AS <column>'", origin=origin)
        replaced[norm.part(alias.args["alias"]).lower()] = alias.this
    return entries, replaced, origin


def exclude(star: exp.Star, entries: list, ctx, scope, where: str, origin: Origin | None) -> list:
    """The (name, target) pairs of a star without the columns its EXCLUDE / EXCEPT names.

    An unqualified name drops every column of that name; a qualified one (``EXCLUDE (t.id)``
    over a join) drops only that FROM item's column — DuckDB keeps ``s.id`` (checked).  A
    qualifier naming no FROM item, or a column the star does not stand for, is an error, as
    DuckDB refuses it.  A qualified column a USING join merged is refused: DuckDB then lists the
    other side's column where that side stands, which is not the merged column."""
    items = star.args.get("except_") or star.args.get("except") or []
    if not items:
        return entries
    norm = ctx.normalizer
    names: set[str] = set()
    fields: dict[str, tuple[exp.Column, str]] = {}  # field id -> (the item, its text)
    for item in items:
        if isinstance(item, exp.Column) and item.parts[:-1]:
            qualifier = tuple(norm.part(p) for p in item.parts[:-1])
            name = norm.part(item.this)
            text = item.sql(dialect=ctx.dialect)
            at = ctx.origin(item.this) or origin
            source = scope.source(qualifier)
            if source is None:
                raise UnknownTableError(".".join(qualifier), scope.aliases(), at)
            found = source.find(name)
            if found is None:
                if source.is_open:
                    continue  # a column of a table not in the schema: that star stays unknown either way
                raise UnknownColumnError(name, table=source.label, available=source.names(), origin=at)
            fields[found.id] = (item, text)
        else:
            names.add(norm.part(item.this if isinstance(item, exp.Column) else item).lower())
    kept = [(n, t) for n, t in entries
            if n.lower() not in names and not (isinstance(t, Field) and t.id in fields)]
    present = {t.id for _, t in entries if isinstance(t, Field)}
    for field_id, (item, text) in fields.items():
        if field_id in present:
            continue
        name = norm.part(item.this)
        at = ctx.origin(item.this) or origin
        if any(n.lower() == name.lower() and not isinstance(t, Field) for n, t in entries):
            raise InvalidStatementError(
                f"EXCLUDE ({text}): {name} is merged by a USING join, and excluding one side's "
                f"{name} makes the engine list the other side's where that side stands — not read by "
                f"prism_lineage: write EXCLUDE ({name}) or name the columns", origin=at)
        raise InvalidStatementError(f"EXCLUDE ({text}): {text} is not one of the columns the star "
                                    "stands for", origin=at)
    return kept


def star_filter(star: exp.Star, where: str, origin: Origin | None, pattern: exp.Expression | None = None,
                case_sensitive: bool = False, negate: bool = False):
    """Snowflake's and DuckDB's ``* ILIKE 'pattern'`` (and DuckDB's ``* [NOT] LIKE 'pattern'``,
    ``pattern`` given): the star stands for the columns whose name matches the pattern (``%``
    any text, ``_`` one character; ILIKE without case), wherever the star is — a select item, a
    function argument (``HASH(* ILIKE 'a%')``, ``OBJECT_CONSTRUCT(* ILIKE …)``).  Returns
    ``name -> bool`` (the unknown columns ``*`` of a table not in the schema are kept: which of
    them match is unknown), or ``None`` when the star has no pattern."""
    if pattern is None:
        pattern = star.args.get("ilike")
    if pattern is None:
        return None
    if not (isinstance(pattern, exp.Literal) and pattern.is_string) or "\\" in pattern.this:
        raise InvalidStatementError(f"the pattern {pattern.sql()} of {where}: only a plain string pattern (no "
                                    "escape character) is read: list the columns instead", origin=origin)
    regex = re.compile(_like_regex(pattern.this, None), re.S | (0 if case_sensitive else re.I))
    return lambda name: name == "*" or (regex.fullmatch(name) is not None) != negate


def star_pattern(node: exp.Expression):
    """DuckDB's ``* LIKE 'a%'`` / ``* NOT LIKE 'a%'`` / ``t.* ILIKE …`` / ``* SIMILAR TO 'regex'`` /
    ``* GLOB 'a*'`` as a select item (sqlglot reads them as a predicate over a star): ``(the
    star, the column node or None, name -> bool)``; ``None`` for anything else."""
    negate = False
    if isinstance(node, exp.Not) and isinstance(node.this, (exp.Like, exp.ILike, exp.SimilarTo, exp.Glob)):
        node, negate = node.this, True
    if not isinstance(node, (exp.Like, exp.ILike, exp.SimilarTo, exp.Glob)) or not is_star(node.this):
        return None
    star_node = node.this
    star = star_node.this if isinstance(star_node, exp.Column) else star_node
    where = node.sql(dialect="duckdb")
    negate = negate != bool(node.args.get("negate"))
    if isinstance(node, (exp.SimilarTo, exp.Glob)):
        pattern = node.expression
        if not (isinstance(pattern, exp.Literal) and pattern.is_string) or node.args.get("escape"):
            raise InvalidStatementError(f"the pattern of {where}: only a plain string pattern is read: list the "
                                        "columns instead", origin=None)
        if isinstance(node, exp.Glob):
            def test(name: str, glob: str = pattern.this) -> bool:
                return fnmatch.fnmatchcase(name, glob)
        else:  # SIMILAR TO: the whole name matches the regular expression
            if _NOT_RE2.search(pattern.this):
                raise InvalidStatementError(f"{where}: lookaround and backreferences are not RE2 syntax",
                                            origin=None)
            try:
                regex = re.compile(pattern.this, re.S)
            except re.error as error:
                raise InvalidStatementError(f"{where}: not a regular expression ({error})", origin=None) from None

            def test(name: str) -> bool:
                return regex.fullmatch(name) is not None

        def keep(name: str) -> bool:
            return name == "*" or test(name) != negate
    else:
        keep = star_filter(star, where, None, node.expression, case_sensitive=isinstance(node, exp.Like),
                           negate=negate)
    return star, (star_node if isinstance(star_node, exp.Column) else None), keep


def reference(lowerer: "ExpressionLowerer", target, origin: Origin | None, mode: "Mode") -> Expr:
    """A read of one column a star stands for, as the lowerer reads a column in ``mode``."""
    from .expressions import Mode

    if callable(target) and not isinstance(target, Field):  # a column merged by USING
        expr = target(origin)
    else:
        expr = FieldRef(lowerer.ctx.ids.new("col", origin), origin, target.type, target.id)
    state = lowerer.state
    if mode is not Mode.ROWS and state.aggregate is not None:
        return state.aggregate.bare_column(expr, lowerer)
    return expr


def star_arguments(lowerer: "ExpressionLowerer", star_node: exp.Expression, function: exp.Expression,
                   mode: "Mode") -> list[Expr]:
    """``*`` / ``t.*`` as an argument of ``function``: a read of every column it stands for."""
    from .expressions import function_name

    where = f"{function_name(function).upper()}({star_node.sql(dialect=lowerer.ctx.dialect)})"
    entries, replaced, origin = star_entries(star_node, lowerer, where)
    args: list[Expr] = []
    # A table whose columns are not in the schema gives its unknown columns (``t.*``): the rules
    # report them as unknown and say so under ``uncertain``.
    for name, target in entries:
        if name.lower() in replaced:
            args.append(lowerer.lower(replaced[name.lower()], mode))
            continue
        args.append(reference(lowerer, target, origin, mode))
    return args


# --- COLUMNS(...) ----------------------------------------------------------------------------


# One column a ``COLUMNS(...)`` expression stands for, in its place in a copy of the select item
# (``max(COLUMNS(*))`` → ``max(t.a)``, ``max(t.b)`` …): a column node (sqlglot's classes are
# compiled and cannot be subclassed) whose ``meta[READS]`` says what it reads — ``("column",
# target)`` or ``("candidates", fields, reason)`` — which the lowerer reads instead of its name.
READS = "prism_reads"


def is_stand_in(node: exp.Expression) -> bool:
    return bool(node._meta) and READS in node._meta


# Regular-expression syntax RE2 (DuckDB's engine) does not have: DuckDB refuses such a
# pattern, so no answer of ours could be right.
_NOT_RE2 = re.compile(r"\(\?(?:[=!]|<[=!]|P=)|\\[1-9]")


class Selection:
    """What one ``COLUMNS(...)`` picks: the columns known to match (name, target, regex match),
    in ``SELECT *`` order, the REPLACE expressions, and — when it cannot be told which columns
    match — the fields it may read and why."""

    def __init__(self) -> None:
        self.columns: list[tuple[str, object, re.Match | None]] = []
        self.replaced: dict[str, exp.Expression] = {}
        # ``COLUMNS(* RENAME a AS z)``: the output name of a column, by its lower-case name.
        self.renamed: dict[str, str] = {}
        # (target or candidate field ids, reason, output name if known)
        self.unknown: list[tuple[object, str, str | None]] = []
        self.origin: Origin | None = None


def selection(node: exp.Columns, lowerer: "ExpressionLowerer") -> Selection:
    ctx, scope = lowerer.ctx, lowerer.scope
    what = node.this
    text = node.sql(dialect=ctx.dialect)
    chosen = Selection()
    chosen.origin = ctx.origin(node) or lowerer._span(node)
    if is_star(what):
        entries, chosen.replaced, _ = star_entries(what, lowerer, text)
        star = what.this if isinstance(what, exp.Column) else what
        norm = ctx.normalizer
        for alias in star.args.get("rename") or []:  # field trial 72: the name was the old one
            if isinstance(alias, exp.Alias) and alias.args.get("alias") is not None:
                old_name = alias.this.this if isinstance(alias.this, exp.Column) else alias.this
                chosen.renamed[norm.part(old_name).lower()] = norm.part(alias.args["alias"])
        matcher = None
    elif isinstance(what, exp.Literal) and what.is_string:
        pattern = what.this
        if _NOT_RE2.search(pattern):
            raise InvalidStatementError(f"{text}: lookaround and backreferences are not RE2 syntax, which DuckDB "
                                        "matches column names with", origin=chosen.origin)
        try:
            regex = re.compile(pattern)
        except re.error as error:
            raise InvalidStatementError(f"{text}: not a regular expression ({error})", origin=chosen.origin) from None
        entries = list(scope.star_columns()) if scope.sources else []
        matcher = regex.search  # DuckDB: a column matches when the pattern matches part of its name
    elif isinstance(what, exp.Array) and all(isinstance(e, exp.Literal) and e.is_string for e in what.expressions):
        wanted = {e.this.lower() for e in what.expressions}
        entries = list(scope.star_columns()) if scope.sources else []
        known = {n.lower() for n, _ in entries if n != "*"}
        missing = [e.this for e in what.expressions if e.this.lower() not in known]
        open_sources = [s for s in scope.sources if s.is_open]
        if missing and not open_sources:
            raise InvalidStatementError(f"{text}: no column {missing[0]} in {', '.join(scope.aliases())}",
                                        origin=chosen.origin)
        matcher = None
        entries = [(n, t) for n, t in entries if n != "*" and n.lower() in wanted]
        for name in missing:  # named, so read by name from the table(s) whose columns are not declared
            if len(open_sources) == 1:
                entries.append((name, open_sources[0].open_column(name)))
            else:
                fields = tuple(s.open_column(name).id for s in open_sources)
                chosen.unknown.append((fields, f"{name} may be a column of any of "
                                               f"{', '.join(s.label for s in open_sources)}", name))
    elif isinstance(what, exp.Lambda):
        entries = list(scope.star_columns()) if scope.sources else []
        try:
            matcher = _lambda_matcher(what)
        except _NotEvaluated as why:
            fields = tuple(f for _, t in entries for f in _field_ids(t))
            chosen.unknown.append((fields, f"picks the columns its lambda selects, which prism_lineage does not "
                                           f"evaluate ({why}): each output column is one of these", None))
            return chosen
    else:
        raise InvalidStatementError(f"{text}: COLUMNS takes *, a regular expression, a list of column names or a "
                                    "lambda", origin=chosen.origin)
    if not scope.sources:
        raise InvalidStatementError(f"{text} needs a FROM clause", origin=chosen.origin)
    for name, target in entries:
        if name == "*":  # a table whose columns are not in the schema: which of them match is unknown
            owner = next((s for s in scope.sources if s.is_open and s.open_column("*") is target), None)
            label = owner.label if owner is not None else "a table"
            chosen.unknown.append((target, f"{text} over {label}, whose columns are not in the schema: the output "
                                           "columns it stands for are unknown", None))
            continue
        match = matcher(name) if matcher is not None else None
        if matcher is None or match:  # a regular expression's match, or what a lambda says
            chosen.columns.append((name, target, match if isinstance(match, re.Match) else None))
    if not chosen.columns and not chosen.unknown:
        raise InvalidStatementError(f"{text} matches no column of {', '.join(scope.aliases())}",
                                    origin=chosen.origin)
    return chosen


class _NotEvaluated(Exception):
    """A lambda of ``COLUMNS(lambda c: …)`` in a form prism_lineage does not evaluate."""


def _lambda_matcher(node: exp.Lambda):
    """``COLUMNS(lambda c: <predicate>)``: DuckDB keeps the columns whose *name* the predicate
    holds for (``list_filter`` over the names).  The predicate is evaluated here, on each name,
    for the common forms only — ``LIKE``/``ILIKE`` (``ESCAPE``), ``GLOB``, ``=``/``<>``, ``IN``,
    ``starts_with``/``prefix``, ``ends_with``/``suffix``, ``contains``, ``regexp_matches``
    (RE2, a match anywhere) on the name or on ``lower``/``upper`` of it, and ``AND``/``OR``/``NOT``
    of those; anything else raises ``_NotEvaluated`` saying what (the selection then stays
    unknown).  Returns ``name -> bool``."""
    params = [p.name for p in node.expressions]
    if len(params) != 1:
        raise _NotEvaluated("a lambda of one parameter, the column name, was expected")
    param = params[0]
    body = node.this

    def value(expr: exp.Expression, name: str) -> str:
        if isinstance(expr, (exp.Identifier, exp.Column)) and not (isinstance(expr, exp.Column) and expr.table) \
                and expr.name == param:
            return name
        if isinstance(expr, exp.Literal) and expr.is_string:
            return expr.this
        if isinstance(expr, exp.Paren):
            return value(expr.this, name)
        if isinstance(expr, exp.Lower):
            return value(expr.this, name).lower()
        if isinstance(expr, exp.Upper):
            return value(expr.this, name).upper()
        raise _NotEvaluated(f"{expr.sql(dialect='duckdb')} is not the name or a string")

    def holds(expr: exp.Expression, name: str) -> bool:
        if isinstance(expr, exp.Paren):
            return holds(expr.this, name)
        if isinstance(expr, exp.Not):
            return not holds(expr.this, name)
        if isinstance(expr, (exp.And, exp.Or)):
            # Both sides, always: a form it cannot read must be said whatever the other side gives.
            left, right = holds(expr.this, name), holds(expr.expression, name)
            return (left and right) if isinstance(expr, exp.And) else (left or right)
        if isinstance(expr, exp.Boolean):
            return bool(expr.this)
        escape = None
        if isinstance(expr, exp.Escape):
            escape = value(expr.expression, name)
            expr = expr.this
            if not isinstance(expr, (exp.Like, exp.ILike)) or len(escape) != 1:
                raise _NotEvaluated(f"{expr.sql(dialect='duckdb')} ESCAPE …")
        if isinstance(expr, (exp.Like, exp.ILike)):
            text, pattern = value(expr.this, name), value(expr.expression, name)
            flags = re.S | (re.I if isinstance(expr, exp.ILike) else 0)
            found = re.fullmatch(_like_regex(pattern, escape), text, flags) is not None
            return found != bool(expr.args.get("negate"))
        if isinstance(expr, exp.Glob):
            return fnmatch.fnmatchcase(value(expr.this, name), value(expr.expression, name))
        if isinstance(expr, (exp.EQ, exp.NEQ)):
            same = value(expr.this, name) == value(expr.expression, name)
            return same if isinstance(expr, exp.EQ) else not same
        if isinstance(expr, exp.In) and not expr.args.get("query") and not expr.args.get("field"):
            found = value(expr.this, name) in [value(e, name) for e in expr.expressions]
            return found != bool(expr.args.get("negate"))
        if isinstance(expr, exp.StartsWith):
            return value(expr.this, name).startswith(value(expr.expression, name))
        if isinstance(expr, exp.EndsWith):
            return value(expr.this, name).endswith(value(expr.expression, name))
        if isinstance(expr, exp.Contains):
            return value(expr.expression, name) in value(expr.this, name)
        if isinstance(expr, exp.Anonymous) and expr.name.lower() in ("prefix", "suffix") and len(expr.expressions) == 2:
            text, part = (value(e, name) for e in expr.expressions)
            return text.startswith(part) if expr.name.lower() == "prefix" else text.endswith(part)
        if isinstance(expr, exp.RegexpLike) and not expr.args.get("flag"):
            pattern = value(expr.expression, name)
            if _NOT_RE2.search(pattern):
                raise _NotEvaluated(f"{pattern!r} is not RE2 syntax")
            try:
                return re.search(pattern, value(expr.this, name)) is not None
            except re.error as error:
                raise _NotEvaluated(f"{pattern!r} is not a regular expression ({error})") from None
        raise _NotEvaluated(f"{expr.sql(dialect='duckdb')} is not one of the forms it evaluates")

    # Evaluated once first, so a form it cannot read is said before any column is picked.
    holds(body, "")
    return lambda name: holds(body, name)


def _like_regex(pattern: str, escape: str | None) -> str:
    """A LIKE pattern as a regular expression: ``%`` any text, ``_`` one character (DuckDB has
    no escape character unless ``ESCAPE`` gives one)."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if escape is not None and char == escape and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if char == "%" else "." if char == "_" else re.escape(char))
        i += 1
    return "".join(out)


def _field_ids(target) -> tuple[str, ...]:
    if isinstance(target, Field):
        return (target.id,)
    # A column merged by USING (``COALESCE(l.k, r.k)``): the fields of both sides.
    from ...ir.expressions import children

    found, stack = [], [target(None)]
    while stack:
        expr = stack.pop()
        if isinstance(expr, FieldRef):
            found.append(expr.field)
        stack.extend(children(expr))
    return tuple(found)


def lower_columns(lowerer: "ExpressionLowerer", node: exp.Columns, mode: "Mode") -> Expr:
    """``COLUMNS(...)`` outside a select item of its own (``WHERE COLUMNS(*) IS NOT NULL``,
    ``ORDER BY COLUMNS('a')``): DuckDB repeats the clause for each column; the clause reads
    every one of them."""
    chosen = selection(node, lowerer)
    args = [lowerer.lower(_replacement(name, target, chosen, node), mode) for name, target, _ in chosen.columns]
    args += [lower_stand_in(lowerer, _stand_in(node.sql(dialect=lowerer.ctx.dialect), _unknown_reads(t, r), node), mode)
             for t, r, _ in chosen.unknown]
    return lowerer._call("columns", args, node, None)


def _stand_in(name: str, reads: tuple, node: exp.Expression) -> exp.Expression:
    stand_in = exp.column(exp.to_identifier(name, quoted=True))
    stand_in.meta[READS] = reads
    if node._meta and "start" in node._meta:
        stand_in.meta["start"], stand_in.meta["end"] = node._meta["start"], node._meta["end"]
    return stand_in


def lower_stand_in(lowerer: "ExpressionLowerer", node: exp.Column, mode: "Mode") -> Expr:
    from ...ir import CandidateRef

    origin = lowerer.ctx.origin(node)
    reads = node.meta[READS]
    if reads[0] == "column":
        return reference(lowerer, reads[1], origin, mode)
    fields, reason = reads[1], reads[2]
    return CandidateRef(lowerer.ctx.ids.new("col", origin), origin, None, fields, reason)


def _own(node: exp.Expression, root: exp.Expression) -> bool:
    """Whether ``node`` belongs to ``root``'s own query (not to a subquery inside it)."""
    if node is root:
        return True
    parent = node.parent
    while parent is not None and parent is not root:
        if isinstance(parent, exp.Query):
            return False
        parent = parent.parent
    return True


def select_items(item: exp.Expression, lowerer: "ExpressionLowerer", default_name
                 ) -> list[tuple[str, exp.Expression]] | None:
    """The select items ``item`` stands for when it holds ``COLUMNS(...)``: one per column the
    (unpacked-less) COLUMNS picks, ``item`` applied to each (DuckDB: named after the column, or
    the alias with ``\\0``…``\\9`` taken from the pattern's match); ``None`` when it holds none.
    ``*COLUMNS(...)`` inside a function passes every column as an argument (one item)."""
    root = item.root()
    if root._meta and root._meta.get(WITHOUT_COLUMNS):  # the statement's text names no COLUMNS
        return None
    found = [n for n in item.find_all(exp.Columns) if _own(n, item)]
    if not found:
        return None
    ctx = lowerer.ctx
    expanding = [n for n in found if not n.args.get("unpack") and not _inside_unpack(n, item)]
    texts = {n.sql(dialect=ctx.dialect) for n in expanding}
    if len(texts) > 1:
        raise InvalidStatementError(
            f"different COLUMNS expressions in one select item ({', '.join(sorted(texts))}) are not supported",
            origin=ctx.origin(expanding[1]) or lowerer._span(expanding[1]))
    alias = item.args.get("alias") if isinstance(item, exp.Alias) else None
    alias_name = ctx.normalizer.output_name(alias) if isinstance(alias, exp.Identifier) else None
    body = item.this if isinstance(item, exp.Alias) else item

    def unpack_all(copy: exp.Expression) -> exp.Expression:
        for node in [n for n in copy.find_all(exp.Columns) if n.args.get("unpack") and _own(n, copy)]:
            chosen = selection(node, lowerer)
            parts = [_replacement(name, target, chosen, node) for name, target, _ in chosen.columns]
            parts += [_stand_in(node.sql(dialect=ctx.dialect), _unknown_reads(target, reason), node)
                      for target, reason, _ in chosen.unknown]
            parent, key = node.parent, node.arg_key
            if isinstance(parent.args.get(key), list):
                siblings = parent.args[key]
                at = next(i for i, s in enumerate(siblings) if s is node)
                parent.set(key, siblings[:at] + parts + siblings[at + 1:])
            elif key == "this" and "expressions" in parent.arg_types:  # ``COALESCE(*COLUMNS(…), x)``
                parent.set("this", parts[0])
                parent.set("expressions", parts[1:] + list(parent.args.get("expressions") or []))
            else:
                raise InvalidStatementError(f"{node.sql(dialect=ctx.dialect)} unpacks into a function's "
                                            "arguments only", origin=chosen.origin)
        for call in [n for n in copy.find_all(exp.Anonymous) if _is_unpack(n) and _own(n, copy)]:
            copy = _unpack_call(call, copy, lowerer)
        return copy

    if not expanding:
        if body.args.get("unpack") and isinstance(body, exp.Columns):
            raise InvalidStatementError(f"{body.sql(dialect=ctx.dialect)}: *COLUMNS unpacks into a function's "
                                        "arguments, not at the root of a select item: use COLUMNS",
                                        origin=ctx.origin(body) or lowerer._span(body))
        if body is item:
            return [(default_name, unpack_all(item.copy()))]
        return [(alias_name or default_name, unpack_all(body.copy()))]
    chosen = selection(expanding[0], lowerer)
    text = item.sql(dialect=ctx.dialect) if alias_name is None else alias_name
    out: list[tuple[str, exp.Expression]] = []
    for name, target, match in chosen.columns:
        copy = _replace_all(body.copy(), lambda node: _replacement(name, target, chosen, node))
        # RENAME names the column only where COLUMNS(...) is the whole item (DuckDB 2.0.1:
        # ``max(COLUMNS(* RENAME a AS z))`` is still named ``a``).
        shown = chosen.renamed.get(name.lower(), name) if body is expanding[0] else name
        out.append((_output_name(shown, alias_name, match, copy, ctx), unpack_all(copy)))
    for target, reason, known_name in chosen.unknown:
        name = alias_name or known_name or text
        copy = _replace_all(body.copy(), lambda node: _stand_in(name, _unknown_reads(target, reason), node))
        if not isinstance(target, tuple):
            ctx.uncertain_about(reason, name, chosen.origin)
        out.append((name, unpack_all(copy)))
    return out


def _is_unpack(node: exp.Expression) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.lower() == "unpack" and len(node.expressions) == 1


def _inside_unpack(node: exp.Expression, root: exp.Expression) -> bool:
    """Whether ``node`` is inside DuckDB's ``UNPACK(…)`` within ``root``."""
    parent = node.parent
    while parent is not None and parent is not root.parent:
        if _is_unpack(parent):
            return True
        parent = parent.parent
    return False


def _unpack_call(call: exp.Anonymous, copy: exp.Expression, lowerer: "ExpressionLowerer") -> exp.Expression:
    """DuckDB's ``UNPACK(e)`` where ``e`` holds ``COLUMNS(...)``: ``e`` for each column the
    COLUMNS picks, spliced into the enclosing list or call (``[UNPACK(COLUMNS(*)::VARCHAR)]`` is
    ``[a::VARCHAR, b::VARCHAR]``: one select item; it was read as one item per column)."""
    ctx = lowerer.ctx
    template = call.expressions[0]
    columns = [n for n in template.find_all(exp.Columns) if not n.args.get("unpack") and _own(n, template)]
    if not columns:
        return copy
    if len({n.sql(dialect=ctx.dialect) for n in columns}) > 1:
        raise InvalidStatementError("different COLUMNS expressions in one UNPACK are not supported",
                                    origin=ctx.origin(columns[1]) or lowerer._span(columns[1]))
    chosen = selection(columns[0], lowerer)
    parts = [_replace_all(template.copy(), lambda node, name=name, target=target: _replacement(name, target, chosen,
                                                                                            node))
             for name, target, _ in chosen.columns]
    parts += [_stand_in(columns[0].sql(dialect=ctx.dialect), _unknown_reads(target, reason), columns[0])
              for target, reason, _ in chosen.unknown]
    node = call
    while isinstance(node.parent, exp.Paren):  # ``[(UNPACK(…))]``
        node = node.parent
    parent, key = node.parent, node.arg_key
    if parent is not None and isinstance(parent.args.get(key), list):
        siblings = parent.args[key]
        at = next(i for i, s in enumerate(siblings) if s is node)
        parent.set(key, siblings[:at] + parts + siblings[at + 1:])
        return copy
    if parent is not None and key == "this" and "expressions" in parent.arg_types:
        parent.set("this", parts[0])
        parent.set("expressions", parts[1:] + list(parent.args.get("expressions") or []))
        return copy
    raise InvalidStatementError(f"{call.sql(dialect=ctx.dialect)} unpacks into a list or a function's arguments only",
                                origin=ctx.origin(call) or lowerer._span(call))


def _replace_all(copy: exp.Expression, make) -> exp.Expression:
    """``copy`` with each COLUMNS(...) of its own (not unpacked) replaced by ``make(node)``."""
    for node in [n for n in copy.find_all(exp.Columns)
                 if not n.args.get("unpack") and _own(n, copy) and not _inside_unpack(n, copy)]:
        if node is copy:
            return make(node)
        node.replace(make(node))
    return copy


def _unknown_reads(target, reason: str) -> tuple:
    if isinstance(target, tuple):  # the fields a lambda may pick
        return ("candidates", target, reason)
    return ("column", target)


def _replacement(name: str, target, chosen: Selection, node: exp.Expression) -> exp.Expression:
    replaced = chosen.replaced.get(name.lower())
    if replaced is not None:  # ``COLUMNS(* REPLACE (a + 1 AS a))``
        return replaced.copy()
    return _stand_in(name, ("column", target), node)


def _output_name(name: str, alias: str | None, match: re.Match | None, copy: exp.Expression, ctx) -> str:
    if alias is None and type(ctx.dialect).__name__.lower() != "duckdb" and not is_stand_in(copy):
        # Other engines with COLUMNS (ClickHouse) name an expression around it by its text.
        text = copy.copy()
        for stand_in in [c for c in text.find_all(exp.Column) if is_stand_in(c)]:
            stand_in.replace(exp.column(exp.to_identifier(stand_in.this.name)))
        return text.sql(dialect=ctx.dialect)
    if alias is not None:
        if match is None:
            # No regex (``COLUMNS(*)``, a list, a lambda): DuckDB still rewrites ``\0`` to the
            # column's name (``MIN(COLUMNS(*)) AS "min_\0"`` gives min_i, min_j; field trial 76:
            # every column was named ``min_\0``).
            if type(ctx.dialect).__name__.lower() == "duckdb":
                return alias.replace("\\0", name)
            return alias
        # DuckDB rewrites the alias with the match's groups: ``\0`` the whole match, ``\1`` …
        return re.sub(r"\\(\d)", lambda m: match.group(int(m.group(1))) if int(m.group(1)) <= (match.re.groups)
                      else m.group(0), alias)
    return name


# --- a struct column's fields: ``customer.*`` -------------------------------------------------


def struct_star(column: exp.Column, lowerer: "ExpressionLowerer") -> list[tuple[str, exp.Expression]] | None:
    """``s.*`` / ``t.s.*`` where ``s`` is no table but a STRUCT column (DuckDB, BigQuery): one
    select item per field (``s.f``, read as a nested access).  ``None`` when ``s`` is no column
    either (the caller reports the unknown table)."""
    from ...errors import ResolutionError
    from .nested import type_info

    parts = [p.copy() for p in column.parts[:-1]]
    if not parts or len(parts) > 4:
        return None
    base = exp.Column(this=parts[-1], **{k: v for k, v in zip(("table", "db", "catalog"), reversed(parts[:-1]))})
    try:
        read = lowerer.lower(base)
    except ResolutionError:
        return None
    text = f"{base.sql(dialect=lowerer.ctx.dialect)}.*"
    origin = lowerer.ctx.origin(column.this) or lowerer._span(column)
    dialect = type(lowerer.ctx.dialect).__name__.lower()
    info = type_info(read.type, None if dialect == "dialect" else dialect)
    if info.known and info.kind != "struct":
        raise InvalidStatementError(f"{text}: {base.sql()} is no table or alias in scope ({', '.join(lowerer.scope.aliases())}) "
                                    f"but a column of type {read.type}, not a struct", origin=origin)
    if not info.fields():
        raise InvalidStatementError(f"{text} stands for the fields of the struct column {base.sql()}, whose type is "
                                    "not declared: declare it in the schema (STRUCT<…>) or name its fields",
                                    origin=origin)
    star = column.this
    if star.args.get("replace") or star.args.get("rename") or star.args.get("ilike"):
        raise InvalidStatementError(f"{text} with REPLACE, RENAME or ILIKE is not read by prism_lineage: name the "
                                    "fields", origin=origin)
    norm = lowerer.ctx.normalizer
    excluded = {norm.part(c.this if isinstance(c, exp.Column) else c).lower() for c in star.args.get("except_") or []}
    return [(name, exp.Dot(this=base.copy(), expression=exp.to_identifier(name, quoted=True)))
            for name, _ in info.fields() if name.lower() not in excluded]


def value_star(dot: exp.Dot, lowerer: "ExpressionLowerer") -> list[tuple[str, exp.Expression]]:
    """``<expression>.*`` (``STRUCT(1 AS a).*``, ``(SELECT AS STRUCT …).*``): one select item per
    field of the value's struct type, each that field of the value.  Refused when the type's
    fields are not known: one item standing for all of them would name a column the output does
    not have."""
    from .nested import struct_field_name, struct_field_value, type_info

    base, star = dot.this, dot.expression
    text = f"{base.sql(dialect=lowerer.ctx.dialect)}.*"
    origin = lowerer._span(base) or lowerer.ctx.origin(star)
    read = lowerer.lower(base)
    dialect = type(lowerer.ctx.dialect).__name__.lower()
    info = type_info(read.type, None if dialect == "dialect" else dialect)
    if info.known and info.kind != "struct":
        raise InvalidStatementError(f"{text}: the value is of type {read.type}, not a struct", origin=origin)
    names = [name for name, _ in info.fields()]
    fields: dict[str, exp.Expression] = {}
    if isinstance(base, exp.Struct):
        # ``STRUCT(1 AS a, x AS b).*``: the constructor names its fields, and each is its own expression.
        named = {struct_field_name(item) or "": struct_field_value(item) for item in base.expressions}
        if all(named) and len(named) == len(base.expressions):
            names = list(named)
            fields = {n.lower(): e for n, e in named.items()}
        else:
            names = []  # an unnamed field (``STRUCT(1, x)``): engines name it differently
    if not names:
        raise InvalidStatementError(f"{text} stands for the fields of a value whose struct type is not known: "
                                    "name the fields", origin=origin)
    norm = lowerer.ctx.normalizer
    excluded = {norm.part(c.this if isinstance(c, exp.Column) else c).lower()
                for c in star.args.get("except_") or star.args.get("except") or []}
    replaced = {norm.part(a.args["alias"]).lower(): a.this for a in star.args.get("replace") or []
                if isinstance(a, exp.Alias) and a.args.get("alias") is not None}
    if star.args.get("rename") or star.args.get("ilike"):
        raise InvalidStatementError(f"{text} with RENAME or ILIKE is not read by prism_lineage: name the fields",
                                    origin=origin)
    return [(name, replaced.get(name.lower()) or fields.get(name.lower())
             or exp.Dot(this=base.copy(), expression=exp.to_identifier(name, quoted=True)))
            for name in names if name.lower() not in excluded]
