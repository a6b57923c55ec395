"""Name resolution: which field a column reference of the SQL text means.

A ``Scope`` is the FROM clause of one SELECT: its sources (tables, derived tables, CTE
references) by alias, the columns merged by ``USING``/``NATURAL`` joins, and the enclosing
scope for correlated references.  Resolution follows the SQL rules: a qualified name looks up
its table alias (innermost scope first), an unqualified one must match exactly one source of
the innermost scope that has it; only when no schema knows the column is it given to a
schema-less source — exactly when there is one, conservatively when there are several.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.dialects.dialect import NormalizationStrategy

from ...errors import AmbiguousColumnError, UnknownColumnError, UnknownTableError
from ...ir import AccessKind, CandidateRef, Expr, Field, FieldRef, NestedAccess, Origin, OuterRef
from .context import LoweringContext, ScanBuilder


@dataclass(slots=True, eq=False)
class Source:
    """One item of a FROM clause, as the rest of the query sees it.

    A table read keeps a ``ScanBuilder`` (columns become fields when first named); a derived
    table, CTE reference or VALUES list has fixed ``columns``.
    """

    alias: str
    label: str  # how messages and answers name it (the table name, or the alias)
    relation_id: str
    columns: list[tuple[str, Field]] = field(default_factory=list)
    scan: ScanBuilder | None = None
    table_parts: tuple[str, ...] = ()  # normalised dotted name, for ``db.t.col`` qualifiers
    aliased: bool = False
    star: Field | None = None  # stands for the columns of an unknown schema
    # The star is a derived table's only one (``(SELECT *, … FROM t)`` with ``t`` schema-less):
    # a column named through it can only be that column of ``t``.
    named_star: bool = False
    other_stars: tuple[Field, ...] = ()  # more stars (``SELECT * FROM a JOIN b``, both schema-less)
    unstarred: frozenset[str] = frozenset()  # (lower-case) columns read by name only, not by ``*``
    # BigQuery's ``UNNEST(a)`` of elements whose type is not known: the element may be a struct,
    # whose fields are columns too (a value table) — any name not listed may be one of them.
    fields_of: Field | None = None
    # Why the columns its ``*`` column stands for are not known (a generator's, said under
    # ``uncertain`` when ``SELECT *`` lists them).
    star_reason: str | None = None
    # Columns an unaliased ClickHouse ``ARRAY JOIN arr`` replaced by its elements (lower-case name →
    # the element): ``t.arr`` and ``*`` read the element after it.
    replaced: dict[str, Field] | None = None
    _index: dict[str, list[Field]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        index = self._index
        for name, f in self.columns:
            index.setdefault(name.lower(), []).append(f)

    def find(self, name: str) -> Field | None:
        scan = self.scan
        if scan is not None:
            return scan.declared_column(name) if scan.declared is not None else None
        found = self._index.get(name.lower())
        if not found:
            return None
        if len(found) > 1:
            for candidate_name, f in self.columns:
                if candidate_name == name:
                    return f
        return found[0]

    def has(self, lowered: str) -> bool:
        """Whether the source declares a column of this (lower-case) name."""
        scan = self.scan
        if scan is not None:
            return scan.declared is not None and scan.declared.has(lowered)
        return lowered in self._index

    def names(self) -> list[str]:
        if self.scan is not None:
            declared = self.scan.declared
            return [c.name for c in declared.columns] if declared is not None else []
        return [name for name, _ in self.columns]

    @property
    def is_open(self) -> bool:
        """Whether the source may have columns nobody declared."""
        return (self.scan is not None and self.scan.declared is None) or self.star is not None

    def open_column(self, name: str) -> Field:
        if self.scan is not None and self.scan.declared is None:
            return self.scan.column(name)
        if self.star is None and self.fields_of is not None:
            return self.fields_of
        assert self.star is not None
        return self.star

    def star_items(self) -> list[tuple[str, Field]]:
        if self.replaced:
            return [(n, self.replaced.get(n.lower(), f)) for n, f in self._star_items()]
        return self._star_items()

    def _star_items(self) -> list[tuple[str, Field]]:
        scan = self.scan
        if scan is not None:
            if scan.declared is None:
                return [("*", scan.column("*"))]
            return [(c.name, scan.column(c.name, c.type)) for c in scan.declared.columns]
        items = [(n, f) for n, f in self.columns if n.lower() not in self.unstarred] if self.unstarred \
            else list(self.columns)
        if self.star is not None:
            items.append(("*", self.star))
        return items

    def matches_qualifier(self, parts: tuple[str, ...]) -> bool:
        if len(parts) == 1:
            return self.alias.lower() == parts[0].lower()
        if self.aliased or len(parts) > len(self.table_parts):
            return False
        tail = self.table_parts[-len(parts):]
        return all(a.lower() == b.lower() for a, b in zip(tail, parts))


_NONE: list = []

# A column of a ``USING`` / ``NATURAL`` join: builds the merged reference for an origin.
MergedColumn = Callable[[Origin | None], Expr]

# Where ``SELECT *`` over a USING / NATURAL join puts the merged columns (field trial 26):
# * "standard": first, in the USING list's order (NATURAL: the left side's), then the left
#   side's other columns, then the right side's (SQL-92 7.5; Postgres documents it, Spark and
#   Trino follow it; the generic dialect too);
# * "left_first": first, in the order the left side has them (MySQL documents it);
# * "in_place": the left side's columns in their own order, a merged one where the left side
#   has it, then the right side's others (DuckDB, the oracle, and SQLite, which omits the
#   right side's column).
# Any other dialect: not known — ``Scope.star_columns`` keeps the standard order and the
# in-place one beside it, and ``*`` says which columns a position may hold.
USING_STAR_ORDER = {
    "duckdb": "in_place", "sqlite": "in_place", "mysql": "left_first", "postgres": "standard",
    "spark": "standard", "spark2": "standard", "databricks": "standard", "trino": "standard",
    "presto": "standard", "athena": "standard", None: "standard",
}
_KEEP = object()


class Scope:
    __slots__ = ("ctx", "sources", "merged", "star_order", "alt_star_order", "outer", "select_aliases", "_by_alias",
                 "visible", "aggregates_allowed")

    def __init__(self, ctx: LoweringContext, outer: "Scope | None" = None):
        self.ctx = ctx
        self.sources: list[Source] = []
        self.merged: dict[str, MergedColumn] = {}
        # What ``SELECT *`` expands to, in order: a source with the names a USING join merged
        # away from it, or a merged column's name and builder.  Expanded only on demand, so a
        # table read lists only the columns the query reads.
        # A source's detail: the names it no longer lists, or (``in_place`` order) per name None
        # (dropped) or the merged column standing in its place.
        self.star_order: list[tuple[Source | str, frozenset[str] | dict | MergedColumn]] = []
        # Where the dialect's order is not known (``USING_STAR_ORDER``), after a USING join: the
        # in-place order beside the standard one in ``star_order``.
        self.alt_star_order: list | None = None
        self.outer = outer
        # Select-list aliases a clause may fall back to (set by the SELECT being lowered).
        self.select_aliases: dict[str, exp.Expression] = {}
        # Alias → first source with it, built on first use after the sources change: a query
        # over many tables resolves each qualifier by one lookup instead of asking every source.
        self._by_alias: dict[str, Source] | None = None
        # The sources an unqualified name may be found in, when not all of them (None): a MERGE
        # action sees only the rows it acts on — WHEN NOT MATCHED the source row, WHEN NOT MATCHED
        # BY SOURCE the target row, DuckDB's and SQLite's DO UPDATE the existing row — so a name
        # both have is that row's, not ambiguous.  Qualified names still reach every source.
        self.visible: list[Source] | None = None
        # While a subquery written in this scope's query is lowered: whether that place may hold
        # an aggregate of this query (a select item, HAVING, QUALIFY, ORDER BY — not WHERE, ON,
        # GROUP BY), so the subquery may hold one too (an "outer aggregate").
        self.aggregates_allowed = False

    # --- building ------------------------------------------------------------------------

    def add(self, source: Source, starred: bool = True) -> None:
        """Add a FROM item.  ``starred``: whether ``SELECT *`` lists its columns (not the
        right side of a semi or anti join, whose columns only its condition reads)."""
        self.sources.append(source)
        if starred:
            self.star_order.append((source, source.unstarred))
            if self.alt_star_order is not None:
                self.alt_star_order.append((source, source.unstarred))
        self._by_alias = None

    def merge_using(self, names: list[str], merged: dict[str, MergedColumn], right: Source) -> None:
        """Record a USING join: each merged column once in ``*``, where the dialect puts it
        (``USING_STAR_ORDER``), the right side's column of that name no more."""
        dialect = type(self.ctx.dialect).__name__.lower()
        order = USING_STAR_ORDER.get(None if dialect == "dialect" else dialect)
        if order == "left_first":
            left = [n.lower() for n in self.star_names()]
            names = sorted(names, key=lambda n: left.index(n.lower()) if n.lower() in left else len(left))
        if order is None and self.alt_star_order is None:
            self.alt_star_order = list(self.star_order)
        if order == "in_place":
            self.star_order = _merged_in_place(self.star_order, names, merged, right)
        else:
            self.star_order = _merged_first(self.star_order, names, merged, right)
            if self.alt_star_order is not None:
                self.alt_star_order = _merged_in_place(self.alt_star_order, names, merged, right)
        self.sources.append(right)
        self._by_alias = None
        for n in names:
            self.merged[n.lower()] = merged[n]

    def hide(self, hidden: list[Source]) -> None:
        """The right side of a SEMI or ANTI join: its columns are seen by its join condition
        only; after it, the query's other clauses and ``*`` see the left side's alone."""
        gone = {id(s) for s in hidden}
        self.sources = [s for s in self.sources if id(s) not in gone]
        self.star_order = [(e, d) for e, d in self.star_order if not (isinstance(e, Source) and id(e) in gone)]
        if self.alt_star_order is not None:
            self.alt_star_order = [(e, d) for e, d in self.alt_star_order
                                   if not (isinstance(e, Source) and id(e) in gone)]
        self._by_alias = None

    def star_columns(self, alternative: bool = False) -> list[tuple[str, "Field | MergedColumn"]]:
        """What ``SELECT *`` expands to, in order (reading every column it names);
        ``alternative``: in the in-place order where the dialect's is not known."""
        out: list[tuple[str, Field | MergedColumn]] = []
        for entry, detail in (self.alt_star_order if alternative else self.star_order):
            if isinstance(entry, Source):
                if isinstance(detail, dict):
                    for n, f in entry.star_items():
                        stand_in = detail.get(n.lower(), _KEEP)
                        if stand_in is _KEEP:
                            out.append((n, f))
                        elif stand_in is not None:
                            out.append(stand_in)
                else:
                    out.extend((n, f) for n, f in entry.star_items() if n.lower() not in detail)
            else:
                out.append((entry, detail))
        return out

    def star_names(self) -> list[str]:
        """The names ``SELECT *`` would produce, without reading the columns."""
        out: list[str] = []
        for entry, detail in self.star_order:
            if isinstance(entry, Source):
                if isinstance(detail, dict):
                    for n in entry.names():
                        stand_in = detail.get(n.lower(), _KEEP)
                        if stand_in is _KEEP:
                            out.append(n)
                        elif stand_in is not None:
                            out.append(stand_in[0])
                else:
                    out.extend(n for n in entry.names() if n.lower() not in detail)
            else:
                out.append(entry)
        return out

    # --- lookups -------------------------------------------------------------------------

    def source(self, parts: tuple[str, ...]) -> Source | None:
        if len(parts) == 1:
            by_alias = self._by_alias
            if by_alias is None:
                by_alias = self._by_alias = {}
                for source in self.sources:
                    by_alias.setdefault(source.alias.lower(), source)
            return by_alias.get(parts[0].lower())
        for source in self.sources:
            if source.matches_qualifier(parts):
                return source
        return None

    def aliases(self) -> list[str]:
        return [s.alias for s in self.sources]

    def columns_in_scope(self) -> list[str]:
        return [f"{s.alias}.{name}" for s in self.sources for name in s.names()]

    def resolve(self, node: exp.Column, origin: Origin | None) -> Expr | None:
        """Resolve a column reference, or return ``None`` when no scope knows it (the caller
        may then try select-list aliases before giving up)."""
        norm = self.ctx.normalizer
        args = node.args
        this = args["this"]
        name = norm.identifier(this) if type(this) is exp.Identifier else norm.part(this)
        table = args.get("table")
        if table is None:  # most columns are unqualified: skip building their parts
            return self._resolve_unqualified(name, origin)
        if type(table) is exp.Identifier and type(this) is exp.Identifier and args.get("db") is None \
                and args.get("catalog") is None:
            # ``t.c`` (most qualified columns): ``node.parts[:-1]`` is ``[table]``, without building it.
            return self._resolve_qualified((norm.identifier(table),), name, origin)
        qualifier = tuple(norm.part(p) for p in node.parts[:-1])
        return self._resolve_qualified(qualifier, name, origin)

    def _resolve_qualified(self, qualifier: tuple[str, ...], name: str, origin: Origin | None) -> Expr:
        scope: Scope | None = self
        depth = 0
        while scope is not None:
            source = scope.source(qualifier)
            if source is not None:
                if source.replaced is not None and name.lower() in source.replaced:
                    return self._ref(source.replaced[name.lower()], origin, depth)
                found = source.find(name)
                if found is not None and source.scan is None and len(source._index[name.lower()]) > 1:
                    self._refuse_duplicated(source, name, origin)
                if found is None:
                    if not source.is_open:
                        raise UnknownColumnError(name, table=source.label, available=source.names(), origin=origin)
                    return self._open_ref(source, name, origin, depth)
                return self._ref(found, origin, depth)
            scope = scope.outer
            depth += 1
        raise UnknownTableError(".".join(qualifier), self.aliases(), origin)

    def _resolve_unqualified(self, name: str, origin: Origin | None) -> Expr | None:
        scope: Scope | None = self
        depth = 0
        open_inner: list[tuple[Source, int]] = []
        key = name.lower()
        while scope is not None:
            sources = scope.sources
            if scope.visible is not None:
                sources = scope.visible  # a USING join's merged key is both rows': not one row's
            elif scope.merged:
                merged = scope.merged.get(key)
                if merged is not None:
                    return self._maybe_candidates(merged(origin), open_inner, name, origin, depth)
            match = None
            for source in sources:
                # ``source.has(key)``, inlined: asked of every source in scope for every column.
                scan = source.scan
                if scan is not None:
                    declared = scan.declared
                    if declared is None or not declared.has(key):
                        continue
                elif key not in source._index:
                    continue
                field = source.find(name)
                if field is not None:
                    if scan is None and len(source._index[key]) > 1:
                        self._refuse_duplicated(source, name, origin)
                    if match is not None:
                        holders = [s for s in sources if s.has(key) and s.find(name) is not None]
                        raise AmbiguousColumnError(name, [f"{s.alias}.{name}" for s in holders], origin)
                    match = field
            if match is not None:
                found = self._ref(match, origin, depth)
                return self._maybe_candidates(found, open_inner, name, origin, depth)
            open_inner.extend((s, depth) for s in sources if s.is_open or s.fields_of is not None)
            scope = scope.outer
            depth += 1
        if not open_inner:
            return None
        innermost = open_inner[0][1]
        candidates = [(s, d) for s, d in open_inner if d == innermost]
        if len(candidates) == 1 and len(open_inner) == 1:
            source, d = candidates[0]
            return self._open_ref(source, name, origin, d)
        # SQL resolves an unqualified name in the innermost scope that has it; with no schema
        # for any candidate, a table of an enclosing query (a correlated reference) is as
        # likely as one of this scope: every candidate, conservative.
        fields = tuple(s.open_column(name).id for s, _ in open_inner)
        labels = ", ".join(s.label for s, _ in candidates)
        outer = [s.label for s, d in open_inner if d != innermost]
        reason = (f"column '{name}' is not in the schema and could come from any of {labels}" if not outer else
                  f"column '{name}' is not in the schema and could come from {labels} or from the enclosing "
                  f"query's {', '.join(outer)}")
        return CandidateRef(self.ctx.ids.new("col", origin), origin, None, fields, reason)

    def _refuse_duplicated(self, source: Source, name: str, origin: Origin | None) -> None:
        """A name a derived table, CTE or VALUES list has twice (``(SELECT a, b AS a FROM t) x``,
        a join's ``SELECT *``): Postgres, Spark, Snowflake, BigQuery, Trino, Oracle, T-SQL refuse a
        reference to it as ambiguous and MySQL the derived table itself, so no column is picked —
        never the first, exact.  DuckDB and SQLite rename duplicates (``stored_names``), so they
        never get here; ClickHouse runs such a query only when both are one expression, and reads
        the first."""
        dialect = type(self.ctx.dialect).__name__.lower()
        if dialect in ("clickhouse", "duckdb"):
            # DuckDB: a duplicate left here comes from names given over unknown columns (``c AS
            # u(r)`` over a star), which the engine renames in ways not known: read as before.
            # (SQLite has no alias lists: a duplicate left is one it numbered at random.)
            return
        same = [(i, n) for i, (n, _) in enumerate(source.columns) if n.lower() == name.lower()]
        strategy = self.ctx.dialect.normalization_strategy
        if strategy in (NormalizationStrategy.LOWERCASE, NormalizationStrategy.UPPERCASE) and \
                any(n == name for _, n in same):
            # The query's names are normalised as the dialect does: a quoted name of another case
            # (Postgres ``a`` and ``"A"``) is another column.  Names spelt by the schema are not
            # normalised, so without an exact match every spelling counts.
            same = [(i, n) for i, n in same if n == name]
        if len(same) > 1:
            raise AmbiguousColumnError(name, [f"{source.label}.{n} (column {i + 1})" for i, n in same], origin)

    def _maybe_candidates(
        self, found: Expr, open_inner: list[tuple[Source, int]], name: str, origin: Origin | None, depth: int
    ) -> Expr:
        """A name found in an outer scope may still belong to a schema-less inner source."""
        if not open_inner or not isinstance(found, (FieldRef, OuterRef)):
            return found
        fields = tuple(s.open_column(name).id for s, _ in open_inner) + (found.field,)
        labels = ", ".join(s.label for s, _ in open_inner)
        return CandidateRef(
            self.ctx.ids.new("col", origin),
            origin,
            found.type,
            fields,
            f"column '{name}' may belong to {labels} (not in the schema) or to the enclosing query",
        )

    def _open_ref(self, source: Source, name: str, origin: Origin | None, depth: int) -> Expr:
        """A column a schema does not declare: of a table read without one, or named through a
        derived table's star (then the column of the same name under the star)."""
        if source.scan is None and source.other_stars:
            # The name is a column of one of several tables whose columns are unknown: that
            # column of each (conservative), named out of each star as in the one-star case.
            stars = source.other_stars + (source.open_column(name),)
            readings = " or ".join(f"{s.name[:-2]}.{name}" if s.name.endswith(".*") else name for s in stars)
            candidates = CandidateRef(self.ctx.ids.new("col", origin), origin, None, tuple(s.id for s in stars),
                                      f"column '{name}' of {source.label} could be {readings}: their columns are "
                                      "not in the schema")
            return NestedAccess(self.ctx.ids.new("access", origin), origin, None, candidates, (f".{name}",),
                                AccessKind.COLUMN)
        ref = self._ref(source.open_column(name), origin, depth)
        if source.scan is None and source.star is None and source.fields_of is not None:
            # A field of the unnested elements, whose type is not declared: not checked.
            label = f"the elements of {source.label}"
            return NestedAccess(self.ctx.ids.new("access", origin), origin, None, ref, (f".{name}",),
                                AccessKind.NESTED, False,
                                f"the type of {label} is not declared, so {name} is read as a field of them "
                                "(BigQuery lists a struct element's fields as columns); not checked")
        if source.scan is None and source.named_star:
            return NestedAccess(self.ctx.ids.new("access", origin), origin, None, ref, (f".{name}",),
                                AccessKind.COLUMN)
        return ref

    def _ref(self, target: Field, origin: Origin | None, depth: int) -> Expr:
        expr_id = self.ctx.ids.new("col", origin)
        if depth:
            return OuterRef(expr_id, origin, target.type, target.id)
        return FieldRef(expr_id, origin, target.type, target.id)

    def unknown_column(self, node: exp.Column, origin: Origin | None) -> UnknownColumnError:
        name = self.ctx.normalizer.part(node.this)
        if len(self.sources) == 1 and self.outer is None:
            # One table in scope: name it as the schema spells it, with its columns.
            source = self.sources[0]
            return UnknownColumnError(name, table=source.label, available=source.names(), origin=origin)
        return UnknownColumnError(name, table=None, available=self.columns_in_scope(), origin=origin)


def _merged_first(order: list, names: list[str], merged: dict[str, MergedColumn], right: Source) -> list:
    """The standard order: the merged columns first, then what ``*`` listed before without
    them, then the right side without them."""
    lowered = frozenset(n.lower() for n in names)
    rest = []
    for entry, detail in order:
        if isinstance(entry, str):
            if entry.lower() not in lowered:
                rest.append((entry, detail))
        elif isinstance(detail, dict):
            rest.append((entry, {**detail, **{n: None for n in lowered}}))
        else:
            rest.append((entry, detail | lowered))
    return [(n, merged[n]) for n in names] + rest + [(right, lowered)]


def _merged_in_place(order: list, names: list[str], merged: dict[str, MergedColumn], right: Source) -> list:
    """DuckDB's order: each merged column where the left side lists that name (first place),
    then the right side without them.  A name the left side's known columns do not list (it
    is under a schema-less table's ``*``) goes first, as nothing tells where it stands."""
    wanted = {n.lower(): n for n in names}
    placed: set[str] = set()
    out = []
    for entry, detail in order:
        if isinstance(entry, str):
            key = entry.lower()
            if key in wanted:
                if key not in placed:
                    placed.add(key)
                    out.append((wanted[key], merged[wanted[key]]))
            else:
                out.append((entry, detail))
            continue
        stand_ins = dict(detail) if isinstance(detail, dict) else {n: None for n in detail}
        for name in entry.names():
            key = name.lower()
            if key not in wanted:
                continue
            if key in placed or stand_ins.get(key, _KEEP) is None:
                stand_ins[key] = None
            else:
                placed.add(key)
                stand_ins[key] = (wanted[key], merged[wanted[key]])
        out.append((entry, stand_ins))
    first = [(wanted[k], merged[wanted[k]]) for k in wanted if k not in placed]
    return first + out + [(right, {k: None for k in wanted})]

