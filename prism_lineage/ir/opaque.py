"""A relation the engine cannot see into.

An extension relation of an external plan (Substrait's ``ExtensionSingleRel`` and
``ExtensionMultiRel``) computes its output from its inputs in a way only its producer knows.
``Opaque`` keeps its inputs and its output fields, and says why it is opaque: lineage rules
report every input field as a possible source of every output field, with unknown
confidence, never as "no lineage".
"""

from __future__ import annotations

from dataclasses import dataclass

from .relations import Field, Relation


@dataclass(frozen=True, slots=True, eq=False)
class Opaque(Relation):
    """``name`` says what the relation is (``ExtensionSingleRel acme.Sample``); ``reason``
    why its lineage is unknown."""

    name: str
    sources: tuple[Relation, ...]
    columns: tuple[Field, ...]
    reason: str

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return self.sources

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns
