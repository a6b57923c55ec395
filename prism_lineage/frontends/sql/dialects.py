"""Dialect lookup and identifier normalisation, as the dialect's engine resolves names."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, Dialects, NormalizationStrategy

from ...errors import UnknownDialectError


def known_dialects() -> list[str]:
    return sorted(d.value for d in Dialects if d.value)


# Other names engines are known by (DataHub's platform names among them).
ALIASES = {"mssql": "tsql", "sqlserver": "tsql", "postgresql": "postgres", "awsathena": "athena"}


# One instance per name: a sqlglot Dialect is its class and settings, read and never changed
# (making one parses its version and settings: ~10 µs, several times per ``explain`` call).
_DIALECTS: dict[str | None, Dialect] = {}


def get_dialect(name: str | None) -> Dialect:
    """The sqlglot dialect called ``name`` (``None`` or ``""``: sqlglot's default dialect)."""
    found = _DIALECTS.get(name)
    if found is not None:
        return found
    try:
        found = Dialect.get_or_raise(ALIASES.get(name.lower(), name) if name else None)
    except (ValueError, KeyError):
        raise UnknownDialectError(str(name), known_dialects()) from None
    if isinstance(name, str) and len(_DIALECTS) < 1000:
        _DIALECTS[name] = found
    elif name is None:
        _DIALECTS[None] = found
    return found


def names_are_case_sensitive(name: str | None) -> bool:
    """Whether dialect ``name`` tells output names apart by case (its unquoted names are not
    normalised to one case: ClickHouse …)."""
    from sqlglot.dialects.dialect import NormalizationStrategy

    return get_dialect(name).normalization_strategy is NormalizationStrategy.CASE_SENSITIVE


class Normalizer:
    """Normalises identifiers the way ``dialect`` resolves them (cheaply: no AST copies)."""

    __slots__ = ("_fold", "_fold_quoted", "_preserves_case")

    def __init__(self, dialect: Dialect):
        strategy = dialect.normalization_strategy
        upper = strategy in (NormalizationStrategy.UPPERCASE, NormalizationStrategy.CASE_INSENSITIVE_UPPERCASE)
        fold = None if strategy is NormalizationStrategy.CASE_SENSITIVE else (str.upper if upper else str.lower)
        self._fold = fold
        insensitive = strategy in (
            NormalizationStrategy.CASE_INSENSITIVE,
            NormalizationStrategy.CASE_INSENSITIVE_UPPERCASE,
        )
        self._fold_quoted = fold if insensitive else None
        # Case-insensitive engines (DuckDB, BigQuery, Spark …) match names without case but
        # show output columns as written.
        self._preserves_case = insensitive

    def identifier(self, node: exp.Identifier) -> str:
        args = node.args
        fold = self._fold_quoted if args.get("quoted") else self._fold
        name = args["this"]
        return fold(name) if fold else name

    def output_name(self, node: exp.Identifier) -> str:
        """An output column's name as the engine would show it."""
        return node.this if self._preserves_case else self.identifier(node)

    def name(self, text: str, quoted: bool = False) -> str:
        fold = self._fold_quoted if quoted else self._fold
        return fold(text) if fold else text

    def part(self, node: exp.Expression | str | None) -> str | None:
        """Normalise an identifier-ish node (``Identifier``, ``Var``, ``Star``) or a string."""
        if node is None:
            return None
        if isinstance(node, str):
            return self.name(node)
        if isinstance(node, exp.Identifier):
            return self.identifier(node)
        return self.name(node.name)
