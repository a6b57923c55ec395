"""Semi-structured access: paths into JSON, VARIANT, OBJECT and SUPER values, in each
dialect's syntax (specs/nested.md).

``j -> 'a'``, ``j ->> 'a'``, ``j #> '{a,b}'`` (Postgres), ``JSON_EXTRACT(j, '$.a')``,
``JSON_VALUE``/``JSON_QUERY`` (BigQuery, T-SQL), ``get_json_object`` (Spark), ``v:a.b`` and
``GET_PATH``/``GET`` (Snowflake), DuckDB's ``->``/``->>``: sqlglot reads them all into a few
node classes with a parsed JSON path; each becomes a ``NestedAccess`` of kind semi-structured
with the path.  Which part of the value is read depends on data whose shape is not declared,
so the lineage is conservative — unless the schema declares the column's shape
(``JSON<STRUCT<…>>``) and the path is in it: then it is exact.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot import exp

from ...ir import Expr
from .nested import Step, access

if TYPE_CHECKING:
    from .expressions import ExpressionLowerer, Mode

ACCESS_NODES = (exp.JSONExtract, exp.JSONExtractScalar, exp.JSONBExtract, exp.JSONBExtractScalar,
                exp.JSONExtractArray, exp.GetExtract)

_SIMPLE_PATH = re.compile(r"^\$?((?:\.[A-Za-z_][\w$]*|\[\d+\]|\[\*\]|\['[^']*'\]|\[\"[^\"]*\"\])*)$")


def json_access(lowerer: "ExpressionLowerer", node: exp.Expression, mode: "Mode") -> Expr:
    base = lowerer.lower(node.this, mode)
    steps = path_steps(node.expression)
    return access(lowerer, base, steps, node, mode, semi_structured=True, base_node=node.this)


def path_steps(path: exp.Expression | None) -> list[Step]:
    """The steps of a JSON path as sqlglot parsed it, or of a path written as a string."""
    if isinstance(path, exp.JSONPath):
        steps = []
        for part in path.expressions:
            if isinstance(part, exp.JSONPathKey):
                steps.append(Step(name=str(part.this)) if not isinstance(part.this, exp.Expression)
                             else Step(dynamic=part.this))
            elif isinstance(part, exp.JSONPathSubscript):
                index = part.this
                if isinstance(index, int):
                    steps.append(Step(position=index))
                elif isinstance(index, exp.JSONPathWildcard) or index == "*":
                    steps.append(Step(wildcard=True))
                else:
                    steps.append(Step(dynamic=index) if isinstance(index, exp.Expression) else Step(wildcard=True))
            elif isinstance(part, (exp.JSONPathWildcard, exp.JSONPathSlice, exp.JSONPathRecursive,
                                   exp.JSONPathFilter, exp.JSONPathScript, exp.JSONPathUnion)):
                steps.append(Step(wildcard=True))
        return steps
    if isinstance(path, exp.Literal):
        if path.is_string:
            return _string_path(path.this)
        if path.this.isdigit():
            return [Step(position=int(path.this))]
    if path is None:
        return []
    return [Step(dynamic=path)]


def _string_path(text: str) -> list[Step]:
    """``'{a,b}'`` (Postgres' text array), ``'$.a[0]'`` or ``'a.b'`` (Snowflake GET_PATH)."""
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        return [Step(position=int(p)) if p.strip().isdigit() else Step(name=p.strip().strip('"'))
                for p in text[1:-1].split(",") if p.strip()]
    candidate = text if text.startswith(("$", ".", "[")) else "." + text
    match = _SIMPLE_PATH.match(candidate)
    if not match:
        return [Step(wildcard=True)]
    steps = []
    for token in re.findall(r"\.[A-Za-z_][\w$]*|\[\d+\]|\[\*\]|\['[^']*'\]|\[\"[^\"]*\"\]", match.group(1)):
        if token.startswith("."):
            steps.append(Step(name=token[1:]))
        elif token == "[*]":
            steps.append(Step(wildcard=True))
        elif token[1].isdigit():
            steps.append(Step(position=int(token[1:-1])))
        else:
            steps.append(Step(name=token[2:-2]))
    return steps
