"""What every rewrite test checks: the pipeline leaves every answer of ``explain`` as it was,
and every target of the rewritten plan names authored targets that exist, with their origins."""

from __future__ import annotations

from prism_lineage.explain import explain_statements, lower
from prism_lineage.functions import FunctionRegistry
from prism_lineage.ir import Relation, Statement, walk_relations
from prism_lineage.ir.expressions import iter_tree
from prism_lineage.ir.walk import expressions_of
from prism_lineage.rewrite import RewrittenStatement, rewrite_statement
from prism_lineage.rewrite.pipeline import Rewrite
from prism_lineage.rewrite.provenance import plan_targets

SCHEMA = {
    "t": {"a": "int", "b": "int", "k": "int", "s": "varchar"},
    "u": {"k": "int", "x": "int", "y": "int"},
    "v": {"k": "int", "z": "int"},
}


def rewritten(sql: str, schema: dict | None = None, dialect: str | None = "duckdb",
              rewrites: tuple[Rewrite, ...] | None = None,
              functions: FunctionRegistry | None = None) -> list[RewrittenStatement]:
    """Lower ``sql``, run the pipeline (or only ``rewrites``) and check both guarantees."""
    registry = functions or FunctionRegistry.default()
    statements = lower(sql, SCHEMA if schema is None else schema, dialect)
    results = [rewrite_statement(s, registry, rewrites) for s in statements]
    check_same_lineage(statements, [r.rewritten for r in results], registry)
    for result in results:
        check_authored_links(result)
    return results


def check_same_lineage(authored: list[Statement], rewritten: list[Statement], functions: FunctionRegistry) -> None:
    before = explain_statements(authored, functions).model_dump()
    after = explain_statements(rewritten, functions).model_dump()
    assert after == before, f"the rewritten plan answers differently:\n{before}\n{after}"


def check_authored_links(result: RewrittenStatement) -> None:
    """Every rewritten target resolves to authored targets of the authored plan; one that
    keeps an authored id keeps that target's origin; new ids are new."""
    root = result.rewritten.root
    if root is None:
        return
    authored_root = result.authored.root
    authored_ids = {target for target, _ in plan_targets(authored_root)}
    origins = _origins(authored_root)
    for target, authored in plan_targets(root):
        assert authored, f"{target} names no authored target"
        resolved = result.authored_targets(target)
        assert [t.id for t in resolved] == list(authored)
        assert set(authored) <= authored_ids, f"{target} names targets that were never authored: {authored}"
        if target in authored_ids:
            assert target in authored, f"{target} keeps an authored id but does not stand for it"
    for target, origin in _origins(root).items():
        if target in origins:
            assert origin == origins[target], f"{target} lost its authored origin"


def _origins(root: Relation) -> dict:
    out = {}
    for relation in walk_relations(root):
        out[relation.id] = relation.origin
        for field in getattr(relation, "columns", None) or ():
            out[field.id] = field.origin
        for expr in expressions_of(relation):
            for node in iter_tree(expr):
                out[node.id] = node.origin
    return out


def operators(root: Relation, kind: type) -> list:
    return [r for r in walk_relations(root) if isinstance(r, kind)]


def plan(sql: str, schema: dict | None = None, rewrites: tuple[Rewrite, ...] | None = None,
         dialect: str | None = "duckdb", functions: FunctionRegistry | None = None) -> Relation:
    """The rewritten plan of the first statement of ``sql`` (both guarantees checked)."""
    result = rewritten(sql, schema, dialect, rewrites, functions)[0]
    assert result.rewritten.root is not None
    return result.rewritten.root


def fired(sql: str, schema: dict | None = None, rewrites: tuple[Rewrite, ...] | None = None,
          dialect: str | None = "duckdb") -> tuple[str, ...]:
    return rewritten(sql, schema, dialect, rewrites)[0].fired
