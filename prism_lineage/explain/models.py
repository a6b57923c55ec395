"""The public answer of ``explain`` (JSON contract: specs/explain.md, BRIEF §4)."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, PrivateAttr, model_serializer

from ..lineage.kinds import Confidence, Relationship, Transformation


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, use_enum_values=True)

    def __eq__(self, other: object) -> bool:
        # The answer's fields only: how names are matched (a private attribute) is not part of it.
        return type(self) is type(other) and self.__dict__ == other.__dict__  # type: ignore[union-attr]

    __hash__ = BaseModel.__hash__


class SourceColumn(_Frozen):
    """One base column a field depends on, and how.  ``path`` (absent when the whole column
    is read) is the part of a nested or semi-structured column read: ``items[].sku``
    (specs/nested.md)."""

    column: str
    relationship: Relationship
    transformation: Transformation
    confidence: Confidence
    path: str | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_path(self, handler):
        data = handler(self)
        if data.get("path") is None:
            data.pop("path", None)
        return data


class FieldAnswer(_Frozen):
    name: str
    sources: list[SourceColumn]


class UncertainItem(_Frozen):
    """Something the engine could not determine.  ``field`` is ``None`` for the statement."""

    field: str | None
    reason: str


class StatementAnswer(_Frozen):
    """One statement's answer.  ``reads`` and ``writes`` are the table-level summary: the
    tables the statement reads (every table its plan scans, in any clause, sorted) and the
    tables it writes or changes (its target).  ``rows`` (absent for queries and inserts)
    lists, for UPDATE, DELETE and MERGE, what decides which rows of the target are changed,
    removed or added: the WHERE, the join with the sources, every clause's condition
    (specs/writes.md)."""

    index: int
    kind: str
    target: str | None
    reads: list[str] = []
    writes: list[str] = []
    fields: list[FieldAnswer]
    uncertain: list[UncertainItem]
    rows: list[SourceColumn] | None = None
    # The procedure or function whose body holds the statement (absent for the script's own).
    procedure: str | None = None
    # Whether output names match only exactly (a case-sensitive dialect, a dataframe plan):
    # ``field()`` then finds no field by another case.  Set by ``explain``.
    _case_sensitive: bool = PrivateAttr(default=False)

    def field(self, name: str) -> FieldAnswer:
        """The output field called ``name``: the field of exactly that name, else the one name
        that matches ignoring case (unless the dialect's names are case-sensitive).  Raises
        ``UnknownFieldError`` naming the fields there are (and the closest), or
        ``AmbiguousFieldError`` when several differ only by case."""
        from .asking import find_field

        return find_field(self, name)

    def filtered(self, columns: Iterable[str] | None = None,
                 relationships: Iterable[str] | None = None) -> "StatementAnswer | None":
        """This answer restricted to the output fields named in ``columns`` (matched as
        ``field()`` matches) and to the sources of the kinds in ``relationships``; ``None``
        when no field of it is named.  ``None`` for either means every one."""
        from .asking import filter_statement

        return filter_statement(self, columns, relationships)

    @model_serializer(mode="wrap")
    def _omit_absent_rows(self, handler):
        data = handler(self)
        if data.get("rows") is None:
            data.pop("rows", None)
        if data.get("procedure") is None:
            data.pop("procedure", None)
        return data


def trusted_constructor(cls: type[BaseModel]):
    """``cls.model_construct(**values)`` given every field, positionally in the order the model
    declares them, built directly: the same instance (``__dict__`` in field order, every field
    set, no extra, no private state), without model_construct's per-field alias and default
    lookups — ``explain`` builds one ``FieldAnswer`` per output field of every answer.  Refused
    (at import) for a model this would not serve: aliases, private attributes, a post-init,
    extra fields kept."""
    fields = cls.__pydantic_fields__
    if (cls.__private_attributes__ or cls.__pydantic_post_init__ or cls.__pydantic_root_model__
            or cls.model_config.get("extra") == "allow"
            or any(f.alias is not None or f.validation_alias is not None for f in fields.values())):
        raise TypeError(f"trusted_constructor cannot build {cls.__name__}")
    names = tuple(fields)
    new = cls.__new__
    set_ = object.__setattr__

    def construct(*values):
        instance = new(cls)
        set_(instance, "__dict__", dict(zip(names, values)))
        set_(instance, "__pydantic_fields_set__", set(names))
        set_(instance, "__pydantic_extra__", None)
        set_(instance, "__pydantic_private__", None)
        return instance

    construct.__doc__ = f"{cls.__name__}.model_construct({', '.join(f'{n}=…' for n in names)}), positionally"
    return construct


new_field_answer = trusted_constructor(FieldAnswer)
new_uncertain_item = trusted_constructor(UncertainItem)


class Explanation(_Frozen):
    statements: list[StatementAnswer]

    def field(self, name: str) -> FieldAnswer:
        """The output field called ``name`` (see ``StatementAnswer.field``) of the one statement
        that has it; ``AmbiguousFieldError`` when several statements do (ask one of
        ``statements`` then), ``UnknownFieldError`` when none does."""
        from .asking import find_field_in

        return find_field_in(self.statements, name)

    def filtered(self, columns: Iterable[str] | None = None,
                 relationships: Iterable[str] | None = None) -> "Explanation":
        """The statements that have a field named in ``columns``, each restricted as
        ``StatementAnswer.filtered`` does; ``UnknownFieldError`` when a name is the name of no
        field of any statement.  A relationship that is not a kind is a ``UsageError``."""
        from .asking import filter_explanation

        return filter_explanation(self, columns, relationships)

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent)
