"""Asking smaller questions of an answer: one output field by name (``field()``), and an
answer restricted to some fields and some relationship kinds (``--column``,
``--relationship``; specs/explain.md#asking-about-some-fields).

Names match as the dialect matches them: the field of exactly that name, else the one field
whose name differs only by case — unless the dialect's names are case-sensitive (ClickHouse,
a dataframe or Substrait plan), where only the exact name matches.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import AmbiguousFieldError, UnknownFieldError, UsageError
from ..lineage.kinds import RELATIONSHIP_ORDER, Relationship
from .models import Explanation, FieldAnswer, StatementAnswer

RELATIONSHIPS = tuple(kind.value for kind in sorted(Relationship, key=RELATIONSHIP_ORDER.__getitem__))


def _where(statement: StatementAnswer) -> str:
    return f"statement {statement.index + 1}"


def _matches(statement: StatementAnswer, name: str) -> list[FieldAnswer]:
    exact = [f for f in statement.fields if f.name == name]
    if exact or statement._case_sensitive:
        return exact
    folded = name.casefold()
    return [f for f in statement.fields if f.name.casefold() == folded]


def find_field(statement: StatementAnswer, name: str) -> FieldAnswer:
    found = _matches(statement, name)
    if len(found) == 1:
        return found[0]
    if found:
        raise AmbiguousFieldError(name, [f.name for f in found], _where(statement))
    raise UnknownFieldError(name, [f.name for f in statement.fields], _where(statement))


def find_field_in(statements: list[StatementAnswer], name: str) -> FieldAnswer:
    if len(statements) == 1:
        return find_field(statements[0], name)
    having = [(s, f) for s in statements for f in _matches(s, name)]
    if len(having) == 1:
        return having[0][1]
    if having:
        raise AmbiguousFieldError(name, [f"{f.name} of {_where(s)}" for s, f in having], "the answer")
    names = list(dict.fromkeys(f.name for s in statements for f in s.fields))
    raise UnknownFieldError(name, names, "any statement")


def relationship_kinds(values: Iterable[str] | None) -> frozenset[str] | None:
    """The kinds named in ``values`` (each may be a comma-separated list); a name that is no
    kind is a ``UsageError`` listing the kinds."""
    if values is None:
        return None
    kinds: set[str] = set()
    for value in values:
        for part in str(value).split(","):
            kind = part.strip().lower()
            if not kind:
                continue
            if kind not in RELATIONSHIPS:
                raise UsageError(f"unknown relationship kind '{part.strip()}'; the kinds are: {', '.join(RELATIONSHIPS)}")
            kinds.add(kind)
    if not kinds:
        raise UsageError(f"no relationship kind given; the kinds are: {', '.join(RELATIONSHIPS)}")
    return frozenset(kinds)


def filter_statement(statement: StatementAnswer, columns: Iterable[str] | None,
                     relationships: Iterable[str] | None) -> StatementAnswer | None:
    kinds = relationship_kinds(relationships)
    fields = statement.fields
    if columns is not None:
        chosen = {id(f) for name in columns for f in _matches(statement, name)}
        if not chosen:
            return None
        fields = [f for f in fields if id(f) in chosen]
    kept_names = {f.name for f in fields}
    if kinds is not None:
        fields = [f.model_copy(update={"sources": [s for s in f.sources if s.relationship in kinds]})
                  for f in fields]
    rows = statement.rows
    if rows is not None and kinds is not None:
        rows = [s for s in rows if s.relationship in kinds]
    # What is uncertain about the fields kept, and about the statement as a whole.
    uncertain = [u for u in statement.uncertain if u.field is None or u.field in kept_names]
    answer = statement.model_copy(update={"fields": fields, "rows": rows, "uncertain": uncertain})
    answer._case_sensitive = statement._case_sensitive
    return answer


def filter_explanation(explanation: Explanation, columns: Iterable[str] | None,
                       relationships: Iterable[str] | None) -> Explanation:
    columns = list(columns) if columns is not None else None
    relationship_kinds(relationships)  # a usage error before any work
    if columns:
        for name in columns:  # a name no statement has is an error, naming what there is
            if not any(_matches(s, name) for s in explanation.statements):
                names = list(dict.fromkeys(f.name for s in explanation.statements for f in s.fields))
                raise UnknownFieldError(name, names, "any statement" if len(explanation.statements) != 1
                                        else _where(explanation.statements[0]))
    kept = [found for statement in explanation.statements
            if (found := filter_statement(statement, columns or None, relationships)) is not None]
    return Explanation.model_construct(statements=kept)


def mark_case_sensitive(explanation: Explanation, case_sensitive: bool) -> Explanation:
    for statement in explanation.statements:
        statement._case_sensitive = case_sensitive
    return explanation
