"""End-to-end lineage: from an output field back to base columns (BRIEF §3, specs/explain.md).

* **value** sources: base columns reached through value edges only; a path's transformation
  is its strongest hop, its confidence the weakest.
* **indirect** sources: every relation-level dependency (control, join, grouping, sort …) of
  every relation whose rows flow into the field's relation, and the field-level ones (window,
  an aggregate's FILTER) of the fields its value comes from.  A dependency on a derived field
  is reported on that field's own base sources — its value sources and its field-level
  indirect ones — under the dependency's kind: ``QUALIFY ROW_NUMBER() OVER (PARTITION BY a
  ORDER BY b) = 1`` gives every output field control lineage from ``a`` and ``b``.

One memoised pass over the plan-level edges answers every field of a statement.  Recursive
CTEs make the graph cyclic; their answers are iterated to a fixed point.
"""

from __future__ import annotations

from collections.abc import Sequence

from .edges import Edge, EdgeFields, Link
from .kinds import Confidence, Relationship, Transformation, strongest, surest, weakest
from .paths import UNKNOWN_PART, extend, names_a_star

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


# A way's transformation is its strongest hop, and generator, window and aggregate rank above
# expression: ``{'x': MAX(a), 'y': MAX(b)}`` is an aggregate of ``a`` and of ``b``, yet a part
# read of it (``.x``) has no such part in them.  Such ways are remembered per answer (the
# columns of ``_computed[id(answer)]``) and break a part read as an expression does (field
# trial 74: ``t.b`` was listed, exact, as a source of ``.x``).  Per transformation of one hop:
# the other hop's transformations that hide a break when the two meet.
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
# sources), each in the order given (``()`` where there is none).  One dictionary lookup per
# target instead of four: this is asked for every target of every plan.
_Inputs = list  # [value edges, other edges, flow sources, matched sources]
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
        # A target's record holds the shared empty tuple for a kind of input it has none of
        # (most targets have value edges only): a list is made for what is there.
        inputs: dict[str, _Inputs] = {}
        get = inputs.get
        for edge in edges:
            target = edge.target
            entry = get(target)
            slot = 0 if edge.relationship is _VALUE else 1
            if entry is None:
                entry = inputs[target] = [(), (), (), ()]
                entry[slot] = [edge]
            elif entry[slot]:
                entry[slot].append(edge)
            else:
                entry[slot] = [edge]
        for link in links:
            kind = link.kind
            if kind == "flow" or kind == "matched":
                target = link.target
                entry = get(target)
                slot = 2 if kind == "flow" else 3
                if entry is None:
                    entry = inputs[target] = [(), (), (), ()]
                    entry[slot] = [link.source]
                elif entry[slot]:
                    entry[slot].append(link.source)
                else:
                    entry[slot] = [link.source]
        self._inputs = inputs
        self._known = known
        self._values: dict[str, ValueSources] = dict(known[0]) if known else {}
        self._indirect: dict[str, IndirectSources] = dict(known[1]) if known else {}
        # The targets being computed (a target met again while it is: a recursive CTE's cycle).
        self._active_values: set[str] = set()
        self._active_indirect: set[str] = set()
        self._cyclic = False
        self._previous: tuple[dict, dict] | None = None
        # id(value answer) -> (that answer, its columns reached through a computed hop that a
        # stronger one hides: see ``_HIDDEN_BREAK``).  The answer is kept to tell a reused id.
        self._computed: dict[int, tuple[ValueSources, set[str]]] = {}

    def _computed_in(self, sources: ValueSources) -> set[str] | None:
        entry = self._computed.get(id(sources))
        return entry[1] if entry is not None and entry[0] is sources else None

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
        edges = self._inputs.get(target, _NO_INPUTS)[0]
        if len(edges) == 1:
            edge = edges[0]
            if edge.transformation is _IDENTITY and edge.confidence is _EXACT and edge.reason is None \
                    and edge.path is None:
                # A pass-through hop (a column read as is): share the source's answer — read from
                # the memo, or made for a base column, as the call would (no cycle bookkeeping
                # when nothing is asked in between).
                values = self._values
                source = edge.source
                result = values.get(source)
                if result is None:
                    if source.startswith("column:"):
                        result = values[source] = {source: _IDENTITY_EXACT}
                    else:
                        active.add(target)
                        result = self.value_sources(source)
                        active.discard(target)
                values[target] = result
                return result
        active.add(target)
        result = {}
        computed: set[str] | None = None  # columns reached through a hidden computed hop
        for edge in edges:
            path = edge.path
            sources = self.value_sources(edge.source)
            hidden = self._computed_in(sources) if self._computed else None
            hides = _HIDDEN_BREAK.get(edge.transformation)
            if path is None:
                # The loop below for a whole-value edge (no path: no star named, nothing broken,
                # the column as it is; ``_merge`` inlined where the column is new): every value
                # edge of the plan with more than a pass-through.
                e_transformation, e_confidence, e_reason = edge.transformation, edge.confidence, edge.reason
                get = result.get
                for column, (transformation, confidence, reason) in sources.items():
                    found = (transformation if transformation is e_transformation
                             else strongest(transformation, e_transformation),
                             confidence if confidence is e_confidence else weakest(confidence, e_confidence),
                             reason or e_reason)
                    if get(column) is None:
                        result[column] = found
                    else:
                        _merge(result, column, found)
                    if (hides is not None and transformation in hides) or (hidden is not None and column in hidden):
                        if computed is None:
                            computed = set()
                        computed.add(column)
                continue
            # Paired with a part not known (a set operation by position): that pairing is
            # the reason to give, before the source's own.
            pairing = edge.path == UNKNOWN_PART
            for column, (transformation, confidence, reason) in sources.items():
                if names_a_star(column, edge.path):
                    confidence, reason = _EXACT, None
                found = (strongest(transformation, edge.transformation),
                         weakest(confidence, edge.confidence),
                         (edge.reason or reason) if pairing else (reason or edge.reason))
                if _breaks(edge.path, transformation) or (hidden is not None and column in hidden):
                    _merge(result, column, _part_of_computed(edge.path, found))
                    if hidden is not None and column in hidden:
                        if computed is None:
                            computed = set()
                        computed.add(column)
                else:
                    _merge(result, extend(column, edge.path), found)
                    if hides is not None and transformation in hides:
                        if computed is None:
                            computed = set()
                        computed.add(extend(column, edge.path))
        active.discard(target)
        self._values[target] = result
        if computed is not None:
            self._computed[id(result)] = (result, computed)
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
        value_in, own, flow_in, matched_in = self._inputs.get(target, _NO_INPUTS)
        done = self._indirect
        if not own and not flow_in and not matched_in and len(value_in) <= 1:
            # Most targets are fields whose value is read from one source (or none): what that
            # source depends on, as the general case below gives it — in fewer steps, and with
            # no cycle bookkeeping when nothing is asked in between (a base column, an answer
            # already known).
            if not value_in:
                result = _EMPTY
            else:
                source = value_in[0].source
                result = done.get(source)
                if result is None:
                    if source.startswith("column:"):
                        result = _EMPTY
                    else:
                        active.add(target)
                        result = self.indirect_sources(source)
                        active.discard(target)
                if not result:
                    result = _EMPTY
            done[target] = result
            return result
        active.add(target)
        # The answers already computed are read straight from the memo (what the call would
        # return first): this loop runs for every value edge of the plan.
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
            get = result.get
            for edge in own:
                # Everything the derived source field depends on reaches the target through
                # this edge, so it is reported under this edge's kind.
                kind = edge.relationship
                # An order is by the key's value: ``ORDER BY total`` (``total`` = ``SUM(amount)``)
                # orders by an aggregate of ``amount``, as ``ORDER BY SUM(amount)`` does.
                by_value = kind is _SORT
                e_transformation, e_confidence, e_reason = edge.transformation, edge.confidence, edge.reason
                if edge.path is None:
                    # The two loops below for a whole-value edge (no star named, nothing broken,
                    # the column as it is; ``_merge`` inlined where the key is new): every
                    # control, join, grouping … edge of the plan.
                    for column, (transformation, confidence, reason) in self.value_sources(edge.source).items():
                        key = (column, kind)
                        found = (strongest(e_transformation, transformation) if by_value else e_transformation,
                                 confidence if confidence is e_confidence else weakest(confidence, e_confidence),
                                 reason or e_reason)
                        if get(key) is None:
                            result[key] = found
                        else:
                            _merge(result, key, found)
                    rekinded = _IDENTITY if by_value else e_transformation
                    for (column, _), (_, confidence, reason) in self.indirect_sources(edge.source).items():
                        key = (column, kind)
                        found = (rekinded, confidence if confidence is e_confidence else weakest(confidence, e_confidence),
                                 reason or e_reason)
                        if get(key) is None:
                            result[key] = found
                        else:
                            _merge(result, key, found)
                    continue
                sources = self.value_sources(edge.source)
                hidden = self._computed_in(sources) if self._computed else None
                for column, (transformation, confidence, reason) in sources.items():
                    if names_a_star(column, edge.path):
                        confidence, reason = _EXACT, None
                    found = (strongest(edge.transformation, transformation) if by_value else edge.transformation,
                             weakest(confidence, edge.confidence), reason or edge.reason)
                    if _breaks(edge.path, transformation) or (hidden is not None and column in hidden):
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
