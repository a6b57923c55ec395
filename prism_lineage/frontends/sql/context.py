"""State shared while one SQL statement is lowered."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from ...catalog import Catalog, Table
from ...ir import Field, IdAllocator, Origin, Scan, SourceText, Uncertainty, field_id
from .dialects import Normalizer


@dataclass(slots=True)
class ScanBuilder:
    """A table read by the query.  Its ``Scan`` lists the columns the query reads (its
    projection mask), so it is built once the whole SELECT has been resolved; columns are
    added as the query names them.  ``declared`` holds the catalog's columns by position;
    ``None`` means the table is read without a schema (then any name is accepted)."""

    scan_id: str
    table: str
    origin: Origin | None
    declared: Table | None = None
    opaque_reason: str | None = None
    columns: dict[str, Field] = field(default_factory=dict)
    masks: tuple = ()  # declared masking policies of the table (MaskingPolicy)

    def column(self, name: str, type_: str | None = None) -> Field:
        """The field for column ``name`` (spelled as the catalog spells it, if declared)."""
        found = self.columns.get(name)
        if found is None:
            found = Field(field_id(self.scan_id, name), name, type_, self.origin)
            self.columns[name] = found
        return found

    def declared_column(self, normalized: str) -> Field | None:
        assert self.declared is not None
        column = self.declared.column(normalized)
        if column is None:
            return None
        return self.column(column.name, column.type)

    def build(self) -> Scan:
        columns = self.columns  # (each field under its own name: ``column``)
        if self.declared is not None and len(columns) > 1:
            order = self.declared.positions
            if order.keys() >= columns.keys():
                # Every column read is declared (the commonest): its names sorted by position,
                # with no Python-level key per field — the same stable sort on the same keys.
                fields = tuple(map(columns.__getitem__, sorted(columns, key=order.__getitem__)))
            else:
                fields = tuple(sorted(columns.values(), key=lambda f: order.get(f.name, len(order))))
        else:
            fields = tuple(columns.values())
        return Scan(
            self.scan_id,
            self.origin,
            self.table,
            fields,
            self.declared is not None,
            self.opaque_reason,
            tuple(m for m in self.masks if m.column in self.columns),
        )


_new_tuple = tuple.__new__


class LoweringContext:
    """Ids, positions, names and findings of one statement being lowered."""

    __slots__ = ("ids", "text", "catalog", "normalizer", "dialect", "uncertain", "statement", "functions",
                 "through_script", "source", "top_queries", "ordering", "missing", "inlining",
                 "constructed")

    def __init__(self, *, statement: int, text: SourceText, catalog: Catalog, normalizer: Normalizer, dialect,
                 functions=None, through_script: bool = False, source: str | None = None):
        self.statement = statement
        self.ids = IdAllocator(f"s{statement}")
        self.text = text
        self.catalog = catalog
        self.normalizer = normalizer
        self.dialect = dialect
        self.uncertain: list[Uncertainty] = []
        # The function registry (aggregates, generators … the frontend must recognise), or None.
        self.functions = functions
        # Read tables and views an earlier statement of the script wrote through to that
        # statement's plan (scripts.py), instead of as tables of their own.
        self.through_script = through_script
        # The whole SQL text (dynamic SQL finds the position of the statement it runs in it).
        self.source = source
        # The query blocks whose rows are the statement's result (the statement's query and
        # the query inside its parentheses): only their ORDER BY orders the result.
        self.top_queries: tuple[exp.Expression, ...] = ()
        # The Sort that orders the statement's result, once lowered (``Statement.ordering``).
        self.ordering: tuple[str, ...] = ()
        # What the statement said about tables it read that the schema does not declare: through
        # the script, a later read of the rows it wrote says it too (as the same CTE would).
        self.missing: list[str] = []
        # The calls of functions the script defined whose bodies are being inlined, innermost
        # last (routines.py): names in a body are its parameters, not the query's columns.
        self.inlining: list = []
        # The fields of structs built in derived tables, by the struct field's id: (names, the
        # derived table's extra fields holding each one's value) — nested.expose_constructed_fields.
        self.constructed: dict = {}

    def result_query(self, node: exp.Expression | None) -> None:
        """``node`` is the query whose rows the statement returns or writes."""
        top = []
        while node is not None:
            top.append(node)
            node = node.this if isinstance(node, (exp.Subquery, exp.Paren)) else None
        self.top_queries = tuple(top)

    def is_result(self, node: exp.Expression) -> bool:
        """Whether ``node``'s rows are the statement's result (so its ORDER BY is the result's)."""
        return any(top is node for top in self.top_queries)

    def origin(self, node: exp.Expression | None) -> Origin | None:
        """The span of the token that carries ``node``'s position, if the parser kept one."""
        meta = node._meta if node is not None else None
        if not meta:
            return None
        start = meta.get("start")
        if start is None:
            return None
        # ``self.text.span(start, meta["end"], self.statement)``, inlined: asked for every node lowered.
        text = self.text
        statement = self.statement
        return _new_tuple(Origin, (start, meta["end"], text.statement if statement is None else statement, text.file,
                                   text, None, None, None, None))

    def first_origin(self, part: exp.Expression, fallback: exp.Expression) -> Origin | None:
        """The first position the parser kept inside ``part`` (a clause, which keeps none of its
        own), else ``fallback``'s: where an error about that clause points."""
        for child in part.walk():
            origin = self.origin(child)
            if origin is not None:
                return origin
        return self.origin(fallback)

    def join(self, first: Origin | None, last: Origin | None) -> Origin | None:
        return self.text.join(first, last)

    def uncertain_about(self, reason: str, field_name: str | None = None, origin: Origin | None = None) -> None:
        self.uncertain.append(Uncertainty(reason, field_name, origin))

    def uncertain_unless_said(self, reason: str, origin: Origin | None = None) -> None:
        """``reason`` for the statement, unless the answer's sources already carry it."""
        self.uncertain.append(Uncertainty(reason, None, origin, True))
