"""The end-to-end resolution as it was before session 5's shortcuts (lineage/resolve.py at
99f9ab3), kept as the reference tests/test_speed_equivalences.py compares the current one with:
the same answers for every statement of the workloads and the golden cases."""


from __future__ import annotations

from collections.abc import Sequence

from prism_lineage.lineage.edges import Edge, EdgeFields, Link
from prism_lineage.lineage.kinds import Confidence, Relationship, Transformation, strongest, surest, weakest
from prism_lineage.lineage.paths import UNKNOWN_PART, extend, names_a_star

# A source: (transformation, confidence, reason).
Found = tuple[Transformation, Confidence, "str | None"]
ValueSources = dict[str, Found]  # base column target → how
IndirectSources = dict[tuple[str, Relationship], Found]

_IDENTITY = Transformation.IDENTITY
_EXACT = Confidence.EXACT
_VALUE = Relationship.VALUE
_SORT = Relationship.SORT
_CONTROL = Relationship.CONTROL
_JOIN = Relationship.JOIN
_JOIN_T = Transformation.JOIN
_IDENTITY_EXACT: Found = (_IDENTITY, _EXACT, None)
_EMPTY: dict = {}


# A part read of a field is a part of its source only when the field holds that source's value
# (as is, accessed, parsed, generated, or picked by an aggregate or window: ANY_VALUE(s).x,
# LAG(s).x); a computed field (``{'f': a + 1}``, ``a + b``, a mask, an opaque function) has no
# such part in its inputs, which are then read whole.
_BREAKS_PATHS = frozenset({
    Transformation.EXPRESSION, Transformation.MASK, Transformation.OPAQUE, Transformation.UNKNOWN,
})


def _breaks(path: str | None, transformation: Transformation) -> bool:
    return path is not None and transformation in _BREAKS_PATHS


# Session 8 (field trial 74): a computed hop met with a stronger one that keeps parts
# (generator, window, aggregate) still breaks a later part read; remembered per target.
_HIDDEN_BREAK = {
    Transformation.EXPRESSION: frozenset({Transformation.GENERATOR, Transformation.WINDOW, Transformation.AGGREGATE}),
    Transformation.GENERATOR: frozenset({Transformation.EXPRESSION}),
    Transformation.WINDOW: frozenset({Transformation.EXPRESSION}),
    Transformation.AGGREGATE: frozenset({Transformation.EXPRESSION}),
}


def _part_of_computed(path: str, found: Found) -> Found:
    """A part read of a computed value depends on some of its inputs, and which is not known
    here (``struct(a, b).b`` reads ``b`` only): every input is a source, conservatively, never
    exactly — a superset is not the right source set."""
    transformation, confidence, reason = found
    if confidence is not _EXACT:
        return found
    return (transformation, Confidence.CONSERVATIVE,
            reason or f"the part {path} is read from a computed value, so every input of that value is listed")


def _merge(into: dict, key, found: Found) -> None:
    """Two paths to the same source: the strongest transformation; the surest confidence
    (one exact path proves the dependency), keeping the reason that goes with it."""
    old = into.get(key)
    if old is None:
        into[key] = found
        return
    transformation = strongest(old[0], found[0])
    confidence = surest(old[1], found[1])
    reason = old[2] if confidence == old[1] else found[2]
    into[key] = (transformation, confidence, reason)


def _matched(found: IndirectSources) -> IndirectSources:
    """The dependencies of the rows an outer join pads (its null-supplying side): what decided
    which of them exist (control) decides which rows are matched (join) — ``a LEFT JOIN (SELECT
    … FROM b WHERE p) ON k`` means ``a LEFT JOIN b ON k AND p``."""
    if not any(kind is _CONTROL for _, kind in found):
        return found
    out: IndirectSources = {}
    for (column, kind), (transformation, confidence, reason) in found.items():
        if kind is _CONTROL:
            _merge(out, (column, _JOIN), (_JOIN_T, confidence, reason))
        else:
            _merge(out, (column, kind), (transformation, confidence, reason))
    return out


# What flows into one target: (value edges, other edges, "flow" link sources, "matched" link
# sources), each in the order given.  One dictionary lookup per target instead of four: this
# is asked for every target of every plan.
_Inputs = tuple[list[Edge], list[Edge], list[str], list[str]]
_NO_INPUTS: _Inputs = ((), (), (), ())  # type: ignore[assignment]


class EndToEnd:
    """Answers ``value_sources(target)`` and ``indirect_sources(target)`` for one plan."""

    __slots__ = ("_inputs", "_values", "_indirect", "_active_values", "_active_indirect", "_cyclic", "_previous",
                 "_known", "_computed")

    def __init__(self, edges: "Sequence[Edge | EdgeFields]", links: list[Link],
                 known: "tuple[dict[str, ValueSources], dict[str, IndirectSources]] | None" = None):
        """``known``: the answers of targets whose edges are not given (value sources and
        indirect sources by target: the rows of a script's table, resolved once for every
        statement that reads them — lineage/through.py)."""
        inputs: dict[str, _Inputs] = {}
        get = inputs.get
        for edge in edges:
            target = edge.target
            entry = get(target)
            if entry is None:
                entry = inputs[target] = ([], [], [], [])
            entry[0 if edge.relationship is _VALUE else 1].append(edge)
        for link in links:
            kind = link.kind
            if kind == "flow" or kind == "matched":
                entry = get(link.target)
                if entry is None:
                    entry = inputs[link.target] = ([], [], [], [])
                entry[2 if kind == "flow" else 3].append(link.source)
        self._inputs = inputs
        self._known = known
        self._values: dict[str, ValueSources] = dict(known[0]) if known else {}
        self._indirect: dict[str, IndirectSources] = dict(known[1]) if known else {}
        # The targets being computed (a target met again while it is: a recursive CTE's cycle).
        self._active_values: set[str] = set()
        self._active_indirect: set[str] = set()
        self._cyclic = False
        self._previous: tuple[dict, dict] | None = None
        self._computed: dict[str, set[str]] = {}  # target -> columns reached through a hidden computed hop

    # --- public ----------------------------------------------------------------------------

    def answer(self, fields: list[str], relation: str) -> list[tuple[ValueSources, IndirectSources]]:
        """For each field of ``relation``: its value sources and its indirect sources."""
        result = self._answer(fields, relation)
        rounds = 0
        while self._cyclic and rounds < 50:
            # A recursive CTE: recompute with the last round's answers standing in for the
            # targets still being computed, until nothing changes.
            self._previous = (self._values, self._indirect)
            known = self._known
            self._values, self._indirect = (dict(known[0]), dict(known[1])) if known else ({}, {})
            self._cyclic = False
            again = self._answer(fields, relation)
            if again == result:
                break
            result = again
            rounds += 1
        return result

    def _answer(self, fields: list[str], relation: str):
        relation_deps = self.indirect_sources(relation)
        out = []
        for field in fields:
            indirect = self.indirect_sources(field)
            if relation_deps:
                if indirect:
                    merged = dict(indirect)
                    for key, found in relation_deps.items():
                        _merge(merged, key, found)
                    indirect = merged
                else:
                    indirect = relation_deps
            out.append((self.value_sources(field), indirect))
        return out

    @property
    def cyclic(self) -> bool:
        """Whether a target asked so far depends on itself (a recursive CTE)."""
        return self._cyclic

    # --- value sources -------------------------------------------------------------------

    def value_sources(self, target: str) -> ValueSources:
        found = self._values.get(target)
        if found is not None:
            return found
        if target.startswith("column:"):
            result = {target: _IDENTITY_EXACT}
            self._values[target] = result
            return result
        active = self._active_values
        if target in active:
            self._cyclic = True
            return self._previous[0].get(target, _EMPTY) if self._previous else _EMPTY
        active.add(target)
        edges = self._inputs.get(target, _NO_INPUTS)[0]
        if len(edges) == 1 and edges[0].transformation is _IDENTITY \
                and edges[0].confidence is _EXACT and edges[0].reason is None and edges[0].path is None:
            # A pass-through hop (a column read as is): share the source's answer.
            result = self.value_sources(edges[0].source)
            if edges[0].source in self._computed:
                self._computed[target] = self._computed[edges[0].source]
            else:
                self._computed.pop(target, None)
        else:
            result = {}
            computed: set[str] = set()
            for edge in edges:
                # Paired with a part not known (a set operation by position): that pairing is
                # the reason to give, before the source's own.
                pairing = edge.path == UNKNOWN_PART
                sources = self.value_sources(edge.source)
                hidden = self._computed.get(edge.source, set())
                hides = _HIDDEN_BREAK.get(edge.transformation, frozenset())
                for column, (transformation, confidence, reason) in sources.items():
                    if names_a_star(column, edge.path):
                        confidence, reason = _EXACT, None
                    found = (strongest(transformation, edge.transformation),
                             weakest(confidence, edge.confidence),
                             (edge.reason or reason) if pairing else (reason or edge.reason))
                    if _breaks(edge.path, transformation) or column in hidden:
                        _merge(result, column, _part_of_computed(edge.path, found) if edge.path else found)
                        if column in hidden:
                            computed.add(column)
                    else:
                        _merge(result, extend(column, edge.path), found)
                        if transformation in hides:
                            computed.add(extend(column, edge.path))
            if computed:
                self._computed[target] = computed
            else:
                self._computed.pop(target, None)
        active.discard(target)
        self._values[target] = result
        return result

    # --- indirect sources ----------------------------------------------------------------

    def indirect_sources(self, target: str) -> IndirectSources:
        found = self._indirect.get(target)
        if found is not None:
            return found
        if target.startswith("column:"):
            return _EMPTY
        active = self._active_indirect
        if target in active:
            self._cyclic = True
            return self._previous[1].get(target, _EMPTY) if self._previous else _EMPTY
        active.add(target)
        value_in, own, flow_in, matched_in = self._inputs.get(target, _NO_INPUTS)
        # The answers already computed are read straight from the memo (what the call would
        # return first): this loop runs for every value edge of the plan.
        done = self._indirect
        parts: list[IndirectSources] = []
        for source in flow_in:
            part = done.get(source)
            if part is None:
                part = self.indirect_sources(source)
            if part:
                parts.append(part)
        for source in matched_in:
            part = _matched(self.indirect_sources(source))
            if part:
                parts.append(part)
        for edge in value_in:
            source = edge.source
            part = done.get(source)
            if part is None:
                if source.startswith("column:"):  # a base column depends on nothing
                    continue
                part = self.indirect_sources(source)
            if part:
                parts.append(part)
        if not own and len(parts) <= 1:
            result = parts[0] if parts else _EMPTY
        else:
            result = {}
            for edge in own:
                # Everything the derived source field depends on reaches the target through
                # this edge, so it is reported under this edge's kind.
                kind = edge.relationship
                # An order is by the key's value: ``ORDER BY total`` (``total`` = ``SUM(amount)``)
                # orders by an aggregate of ``amount``, as ``ORDER BY SUM(amount)`` does.
                by_value = kind is _SORT
                hidden = self._computed.get(edge.source, set()) if edge.path is not None else set()
                for column, (transformation, confidence, reason) in self.value_sources(edge.source).items():
                    if names_a_star(column, edge.path):
                        confidence, reason = _EXACT, None
                    found = (strongest(edge.transformation, transformation) if by_value else edge.transformation,
                             weakest(confidence, edge.confidence), reason or edge.reason)
                    if _breaks(edge.path, transformation) or column in hidden:
                        _merge(result, (column, kind), _part_of_computed(edge.path, found))
                    else:
                        _merge(result, (extend(column, edge.path), kind), found)
                # What the key's inputs themselves depend on orders the rows as it is (the key's
                # computation applies to its values only).
                rekinded = _IDENTITY if by_value else edge.transformation
                for (column, _), (_, confidence, reason) in self.indirect_sources(edge.source).items():
                    _merge(result, (column, kind), (
                        rekinded, weakest(confidence, edge.confidence), reason or edge.reason,
                    ))
            for part in parts:
                if not result:
                    result.update(part)
                    continue
                get = result.get
                for key, found in part.items():
                    old = get(key)
                    if old is None:
                        result[key] = found
                    elif old is not found and old != found:
                        _merge(result, key, found)
        active.discard(target)
        self._indirect[target] = result
        return result
