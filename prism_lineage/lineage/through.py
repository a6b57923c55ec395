"""Through a script: the rows of a script's table, resolved once for every statement reading them.

With ``explain(…, through_script=True)`` a read of a table an earlier statement wrote is a
``CteRef`` marked ``script`` whose definition is the rows written into it: the plans of the
earlier statements themselves (frontends/sql/scripts.py).  Walking those plans again for every
reader made each statement cost the size of the script before it — a chain of n ``CREATE TABLE
… AS SELECT … FROM`` the table before took n² in all (issue 15 item 14: 1,000 statements 87 s).

The lineage of such rows does not depend on who reads them: they read nothing of the reading
statement, and none of their sorts is the reader's result order (so the sort lineage of an
earlier statement's own ``ORDER BY`` stays out, as it does when the whole plan is walked).  So
they are resolved once, as a reader sees them (no result order), into a ``RowsSummary``:

* per field of the rows: its value sources and its indirect sources (transformation,
  confidence, reason, path — exactly as the end-to-end resolution found them);
* for the rows as a relation: the indirect sources that reach every field read from them (the
  control of a ``WHERE``, a join, a ``LIMIT`` that picks rows by an order …);
* the tables scanned under them (a reader's ``reads``).

A reader's plan is walked down to such rows and no further; the end-to-end resolution takes
the summary's answers for the rows' targets (``EndToEnd(known=…)``).  Every target's answer
is a function of the edges into it and of its sources' answers only, so a reader's answer is
the one the whole plan gives, byte for byte (tests/sql/test_script_summaries.py compares the
two on generated scripts).  Each statement then costs its own size.

Rows whose lineage is cyclic (a recursive CTE in an earlier statement: its answers are iterated
to a fixed point together with the reader's) are not summarised: readers walk into them, as
before, and stop at the summarised rows below them.
"""

from __future__ import annotations

from ..ir import CteRef, Relation
from ..ir.walk import scanned_tables
from .resolve import EndToEnd, IndirectSources, ValueSources
from .rules import RuleContext, plan_edges

Known = tuple[dict[str, ValueSources], dict[str, IndirectSources]]


class RowsSummary:
    """The resolved lineage of one relation of rows a script wrote (see the module)."""

    __slots__ = ("relation", "values", "indirect", "tables")

    def __init__(self, relation: Relation, values: dict[str, ValueSources] | None,
                 indirect: dict[str, IndirectSources] | None, tables: frozenset[str] | None):
        self.relation = relation
        # ``None``: not summarised (cyclic): readers walk into the rows.
        self.values = values
        self.indirect = indirect
        self.tables = tables


class ScriptSummaries:
    """The summaries of one ``explain`` run (one function registry), made as readers need them."""

    __slots__ = ("_functions", "_done", "subqueries")

    def __init__(self, functions=None):
        self._functions = functions
        self._done: dict[str, RowsSummary] = {}
        # False: the plans walked hold no ``Subquery`` (the caller knows: ``ir.subqueries_made``),
        # so the rules need not search their expressions for one (``RuleContext.subqueries``).
        self.subqueries = True

    # --- a statement's plan ------------------------------------------------------------------

    def plan(self, root: Relation, ordering: frozenset[str]) -> tuple[RuleContext, Known | None]:
        """The rules applied to ``root``'s plan down to the script's rows it reads, and the
        answers of those rows' targets."""
        while True:
            ctx, found, missing = self._walk(root, ordering)
            if not missing:
                return ctx, _known(found)
            for relation in missing:
                self._summarise(relation)

    def tables(self, root: Relation) -> set[str]:
        """The tables ``root``'s plan scans (``scanned_tables``), the script's rows' from their
        summaries."""
        # Nothing summarised yet (a statement with no script rows before it): no relation can be
        # known, so none is asked about (a call per relation of every plan).
        return scanned_tables(root, self._tables_of if self._done else None)

    # --- summaries ---------------------------------------------------------------------------

    def _summary(self, node: Relation) -> RowsSummary | None:
        found = self._done.get(node.id)
        return found if found is not None and found.relation is node else None

    def _tables_of(self, node: Relation) -> frozenset[str] | None:
        found = self._summary(node)
        return found.tables if found is not None else None

    def _walk(self, root: Relation, ordering: frozenset[str]):
        """Apply the rules from ``root`` down, stopping at summarised rows (``found``) and at
        script rows not summarised yet (``missing``: the walk is done again once they are)."""
        ctx = RuleContext(self._functions, ordering)
        ctx.look_below = self.subqueries
        found: list[RowsSummary] = []
        missing: list[Relation] = []
        rows: dict[str, Relation] = {}
        done = self._done

        def stop(node: Relation) -> bool:
            if type(node) is CteRef:
                if node.script:
                    rows[node.definition.id] = node.definition
                return False
            summary = done.get(node.id)
            if summary is not None and summary.relation is node:
                if summary.values is None:
                    return False  # cyclic: walked as part of the reader's plan
                found.append(summary)
                return True
            if rows.get(node.id) is node:
                missing.append(node)
                return True
            return False

        plan_edges(root, ctx, stop)
        return ctx, found, missing

    def _summarise(self, relation: Relation) -> None:
        """Summarise ``relation`` and, first, the script's rows it reads (without recursion:
        a chain of thousands of tables is summarised from the bottom, one at a time)."""
        stack = [relation]
        while stack:
            node = stack[-1]
            if self._summary(node) is not None:
                stack.pop()
                continue
            ctx, found, missing = self._walk(node, frozenset())
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self._done[node.id] = self._resolve(node, ctx, found)

    def _resolve(self, node: Relation, ctx: RuleContext, found: list[RowsSummary]) -> RowsSummary:
        known = _known(found)
        resolved = EndToEnd(ctx.records, ctx.links, known)
        values = {f.id: resolved.value_sources(f.id) for f in node.fields}
        indirect = {f.id: resolved.indirect_sources(f.id) for f in node.fields}
        indirect[node.id] = resolved.indirect_sources(node.id)
        if resolved.cyclic:
            return RowsSummary(node, None, None, None)
        return RowsSummary(node, values, indirect, frozenset(scanned_tables(node, self._tables_of)))


def _known(found: list[RowsSummary]) -> Known | None:
    if not found:
        return None
    if len(found) == 1:
        return found[0].values, found[0].indirect  # type: ignore[return-value]
    values: dict[str, ValueSources] = {}
    indirect: dict[str, IndirectSources] = {}
    for summary in found:
        values.update(summary.values)  # type: ignore[arg-type]
        indirect.update(summary.indirect)  # type: ignore[arg-type]
    return values, indirect
