"""The plan as text: one line per node, every expression in Polars' own spelling.

Polars keeps no call sites: the authored origin of a target lowered from a Polars plan is the
span of its text in this rendering — ``(col("a") + col("c")).alias("d")`` for an expression,
the node's line (``WITH_COLUMNS [...]``) for a relation.  ``PolarsPlan.text`` shows it, so an
origin's ``line:column`` points into something a person can read.
"""

from __future__ import annotations

from .snapshot import PExpr, PNode

_OPERATORS = {
    "Eq": "==", "EqValidity": "eq_missing", "NotEq": "!=", "NotEqValidity": "ne_missing", "Lt": "<", "LtEq": "<=",
    "Gt": ">", "GtEq": ">=", "Plus": "+", "Minus": "-", "Multiply": "*", "Divide": "/", "TrueDivide": "/",
    "FloorDivide": "//", "Modulus": "%", "And": "&", "Or": "|", "Xor": "^", "LogicalAnd": "&", "LogicalOr": "|",
}
_NODE_TITLES = {
    "Select": "SELECT", "HStack": "WITH_COLUMNS", "Filter": "FILTER", "GroupBy": "GROUP_BY", "Join": "JOIN",
    "Sort": "SORT", "Slice": "SLICE", "Distinct": "UNIQUE", "Union": "UNION", "HConcat": "HCONCAT",
    "SimpleProjection": "SELECT_COLUMNS", "MapFunction": "MAP", "Cache": "CACHE", "Scan": "SCAN",
    "DataFrameScan": "DF", "PythonScan": "PYTHON_SCAN", "MergeSorted": "MERGE_SORTED",
}


def operator(expr: PExpr) -> str:
    return str(expr.attrs.get("op", "")).rsplit(".", 1)[-1]


def function_name(expr: PExpr) -> str:
    """``StringFunction.Uppercase`` → ``str.uppercase``; ``('rank', …)`` → ``rank``."""
    data = expr.attrs.get("function_data")
    head = data[0] if isinstance(data, (list, tuple)) and data else data
    text = str(head)
    namespace, _, name = text.rpartition(".")
    prefix = {"StringFunction": "str.", "ListFunction": "list.", "StructFunction": "struct.",
              "BooleanFunction": "", "TemporalFunction": "dt.", "ArrayFunction": "arr.",
              "BinaryFunction": "bin.", "CategoricalFunction": "cat."}.get(namespace, "")
    return prefix + _snake(name or text)


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and not name[i - 1].isupper():
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


class PlanText:
    """Renders a plan and records where each node and expression is: ``spans[id(obj)]`` is
    the (first, last) character offset of its text."""

    def __init__(self, root: PNode):
        self.parts: list[str] = []
        self.length = 0
        self.spans: dict[int, tuple[int, int]] = {}
        self._node(root, 0)
        self.text = "".join(self.parts)

    def _write(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def _node(self, node: PNode, depth: int) -> None:
        self._write("  " * depth)
        start = self.length
        self._write(_NODE_TITLES.get(node.kind, node.kind.upper()))
        detail = _node_detail(node)
        if detail:
            self._write(" " + detail)
        for name, exprs in node.exprs.items():
            self._write(f" {name}=[")
            for i, expr in enumerate(exprs):
                if i:
                    self._write(", ")
                # A predicate's or a join key's output name is Polars' bookkeeping, not the user's.
                self._expr(expr, top=name in ("expr", "exprs", "aggs", "keys"))
            self._write("]")
        self.spans[id(node)] = (start, max(start, self.length - 1))
        self._write("\n")
        for child in node.inputs:
            self._node(child, depth + 1)

    def _expr(self, expr: PExpr, top: bool = False) -> None:
        start = self.length
        self._render(expr)
        # The expression's own text; its ``.alias(…)`` names the output, not the value.
        self.spans[id(expr)] = (start, max(start, self.length - 1))
        name = expr.output_name
        if top and name is not None and not (expr.kind == "Column" and expr.attrs.get("name") == name):
            self._write(f'.alias("{name}")')

    def _args(self, exprs: list[PExpr]) -> None:
        for i, e in enumerate(exprs):
            if i:
                self._write(", ")
            self._expr(e)

    def _render(self, expr: PExpr) -> None:
        kind, attrs = expr.kind, expr.attrs
        if kind == "Column":
            self._write(f'col("{attrs.get("name")}")')
        elif kind == "Literal":
            self._write(f"lit({attrs.get('value')!r})")
        elif kind == "Len":
            self._write("len()")
        elif kind == "BinaryExpr":
            self._write("(")
            self._expr(expr.child("left"))
            self._write(f" {_OPERATORS.get(operator(expr), operator(expr))} ")
            self._expr(expr.child("right"))
            self._write(")")
        elif kind == "Cast":
            self._expr(expr.child("expr"))
            self._write(f".cast({attrs.get('dtype')})")
        elif kind == "Agg":
            args = expr.child_list("arguments")
            if args:
                self._expr(args[0])
                self._write(f".{attrs.get('name')}(")
                self._args(args[1:])
                self._write(")")
            else:
                self._write(f"{attrs.get('name')}()")
        elif kind == "Function":
            args = expr.child_list("input")
            if args:
                self._expr(args[0])
                self._write(f".{function_name(expr)}(")
                self._args(args[1:])
                self._write(")")
            else:
                self._write(f"{function_name(expr)}()")
        elif kind == "Ternary":
            self._write("when(")
            self._expr(expr.child("predicate"))
            self._write(").then(")
            self._expr(expr.child("truthy"))
            self._write(").otherwise(")
            self._expr(expr.child("falsy"))
            self._write(")")
        elif kind == "Window":
            self._expr(expr.child("function"))
            self._write(".over(")
            self._args(expr.child_list("partition_by"))
            if expr.child("order_by") is not None:
                self._write(", order_by=")
                self._expr(expr.child("order_by"))
            self._write(")")
        elif kind == "Filter":
            self._expr(expr.child("input"))
            self._write(".filter(")
            self._expr(expr.child("by"))
            self._write(")")
        elif kind == "SortBy":
            self._expr(expr.child("expr"))
            self._write(".sort_by(")
            self._args(expr.child_list("by"))
            self._write(")")
        elif kind == "Sort":
            self._expr(expr.child("expr"))
            self._write(".sort()")
        elif kind == "Gather":
            self._expr(expr.child("expr"))
            self._write(".gather(")
            self._expr(expr.child("idx"))
            self._write(")")
        elif kind == "Slice":
            self._expr(expr.child("input"))
            self._write(".slice(")
            self._args([expr.child("offset"), expr.child("length")])
            self._write(")")
        elif kind == "Explode":
            self._expr(expr.child("expr"))
            self._write(".explode()")
        elif kind == "AnonymousFunction":
            self._write("<function not shown>")
        else:  # pragma: no cover - the reader refuses other kinds
            self._write(kind)


def _node_detail(node: PNode) -> str:
    a = node.attrs
    if node.kind == "Scan":
        return f"{a.get('format') or ''} {', '.join(a.get('paths') or [])}".strip()
    if node.kind in ("DataFrameScan", "SimpleProjection"):
        return "[" + ", ".join(name for name, _ in node.schema) + "]"
    if node.kind == "Slice":
        return f"offset={a.get('offset')} len={a.get('len')}"
    if node.kind == "Join":
        options = a.get("options")
        how = options[0] if isinstance(options, (list, tuple)) and options else options
        return str(how[0] if isinstance(how, (list, tuple)) else how).lower()
    if node.kind == "Distinct":
        options = a.get("options") or ()
        return f"keep={options[0]} subset={options[1]}" if len(options) > 1 else ""
    if node.kind == "MapFunction":
        function = a.get("function")
        return str(function[0] if isinstance(function, (list, tuple)) and function else function)
    return ""
