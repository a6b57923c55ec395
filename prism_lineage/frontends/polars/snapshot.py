"""Reading a Polars ``LazyFrame``'s logical plan through Polars' own plan visitor.

Polars converts a lazy query into its IR and exposes it, node by node, through the
``NodeTraverser`` that GPU engines for Polars (cudf-polars) read: ``visit()`` on the lazy
frame's inner object.  The plan is read with every optimisation switched off, so it is the
program as written (Polars still resolves names and types, expands ``pl.all()`` and inserts the
casts its type coercion needs).  The traverser's objects are copied into plain trees
(``PNode``, ``PExpr``) that the rest of the frontend reads; nothing else touches Polars.

Versions: the traverser's interface is versioned (``version()``); this reader knows the
versions of the Polars releases in ``SUPPORTED`` and refuses others with a clear message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidPolarsPlanError, PolarsUnavailableError

# Polars releases read (pyproject's ``polars`` extra pins the same range) and the major
# version of their plan visitor's interface.
SUPPORTED = ((2, 1), (2, 2))  # 2.1 <= version < 2.2 (2.0 has visitor version 15)
VISITOR_MAJOR = 16
# The column ``named()`` adds (and drops again) to carry a table name through the plan.
NAME_MARK = "__prism_lineage_table__"


@dataclass(slots=True, eq=False)
class PExpr:
    """One expression node: its kind (``Column``, ``BinaryExpr`` …), plain attributes and
    child expressions (``children``: attribute → expression or list of expressions)."""

    kind: str
    attrs: dict[str, Any]
    children: dict[str, "PExpr | list[PExpr] | None"] = field(default_factory=dict)
    output_name: str | None = None  # the name a top-level expression gives its output

    def child(self, name: str) -> "PExpr | None":
        value = self.children.get(name)
        return value if isinstance(value, PExpr) else None

    def child_list(self, name: str) -> list["PExpr"]:
        value = self.children.get(name)
        if value is None:
            return []
        return value if isinstance(value, list) else [value]


@dataclass(slots=True, eq=False)
class PNode:
    """One plan node: its kind (``Select`` …), path in the plan (``root.input``), plain
    attributes, expression lists, inputs and output schema (name → dtype text)."""

    kind: str
    path: str
    attrs: dict[str, Any]
    exprs: dict[str, list[PExpr]]
    inputs: list["PNode"]
    schema: list[tuple[str, str]]
    dtypes: dict[str, Any] = field(default_factory=dict)  # name → the Polars dtype object


# Child expression attributes of each expression kind (single child / list of children).
_EXPR_CHILDREN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Column": ((), ()),
    "Literal": ((), ()),
    "Len": ((), ()),
    "BinaryExpr": (("left", "right"), ()),
    "Cast": (("expr",), ()),
    "Sort": (("expr",), ()),
    "SortBy": (("expr",), ("by",)),
    "Gather": (("expr", "idx"), ()),
    "Filter": (("input", "by"), ()),
    "Agg": ((), ("arguments",)),
    "Ternary": (("predicate", "truthy", "falsy"), ()),
    "Function": ((), ("input",)),
    "Slice": (("input", "offset", "length"), ()),
    "Window": (("function", "order_by"), ("partition_by",)),
    "Explode": (("expr",), ()),
}
# Expression attributes of each node kind (a list of ``PyExprIR`` or one).
_NODE_EXPRS = ("expr", "exprs", "aggs", "keys", "left_on", "right_on", "by_column", "predicate")
_NODE_SKIP = {"input", "input_left", "input_right", "inputs", "df", "file_info", "file_options", "hive_parts",
              "source_sizes", "scan_type"} | set(_NODE_EXPRS)


def _polars():
    try:
        import polars
    except ImportError:
        raise PolarsUnavailableError(
            "Polars is not installed: install prism-lineage[polars] (polars>=2.1,<2.2) to explain LazyFrames"
        ) from None
    return polars


def check_version() -> Any:
    polars = _polars()
    version = tuple(int(p) for p in polars.__version__.split(".")[:2] if p.isdigit())
    if not (SUPPORTED[0] <= version < SUPPORTED[1]):
        raise PolarsUnavailableError(
            f"Polars {polars.__version__} is not a version prism_lineage reads: it reads the plans of Polars "
            f"{SUPPORTED[0][0]}.{SUPPORTED[0][1]} up to (not including) {SUPPORTED[1][0]}.{SUPPORTED[1][1]} "
            "(pip install 'prism-lineage[polars]')"
        )
    return polars


def read_plan(frame: Any) -> PNode:
    """The plan of ``frame`` (a ``polars.LazyFrame``) as plain trees, optimisations off."""
    polars = check_version()
    inner = frame._ldf.with_optimizations(polars.QueryOptFlags.none()._pyoptflags)
    try:
        traverser = inner.visit()
    except Exception as error:  # Polars' own errors: a plan it cannot resolve
        raise InvalidPolarsPlanError("root", "LazyFrame", f"Polars could not resolve the plan: "
                                                          f"{str(error).splitlines()[0]}") from None
    major = traverser.version()[0]
    if major != VISITOR_MAJOR:
        raise PolarsUnavailableError(
            f"this Polars' plan visitor is version {major}, prism_lineage reads version {VISITOR_MAJOR} "
            f"(the plans of Polars {SUPPORTED[0][0]}.{SUPPORTED[0][1]} up to, not including, "
            f"{SUPPORTED[1][0]}.{SUPPORTED[1][1]})"
        )
    return _Reader(traverser).node("root")


class _Reader:
    def __init__(self, traverser: Any):
        self.nt = traverser

    def node(self, path: str) -> PNode:
        nt = self.nt
        try:
            view = nt.view_current_node()
            kind = type(view).__name__
        except NotImplementedError as error:
            # LazyFrame.map_batches: a Python function over the whole frame, which the visitor
            # does not show ("opaque python mapfunction").
            view, kind = None, "MapFunction"
            unreadable = _Unreadable(str(error))
        attrs: dict[str, Any] = {}
        exprs: dict[str, list[PExpr]] = {}
        if view is None:
            attrs["function"] = (unreadable,)
        for name in dir(view) if view is not None else ():
            if name.startswith("_"):
                continue
            try:
                value = getattr(view, name)
            except Exception as error:  # an attribute Polars cannot show (a Python UDF)
                attrs[name] = _Unreadable(str(error))
                continue
            if name in _NODE_EXPRS and value is not None:
                items = value if isinstance(value, list) else [value]
                exprs[name] = [self.expr(item.node, f"{path}.{name}[{i}]", item.output_name)
                               for i, item in enumerate(items)]
            elif name not in _NODE_SKIP:
                attrs[name] = _plain(value)
        if kind == "Scan":
            attrs["paths"] = [str(p) for p in (getattr(view, "paths", None) or [])]
            scan_type = getattr(view, "scan_type", None)
            attrs["format"] = scan_type[0] if isinstance(scan_type, tuple) and scan_type else None
        schema_objects = dict(nt.get_schema())
        schema = [(name, str(dtype)) for name, dtype in schema_objects.items()]
        inputs: list[PNode] = []
        here = None
        for position, child in enumerate(nt.get_inputs()):
            here = here if here is not None else _current(nt)
            nt.set_node(child)
            inputs.append(self.node(f"{path}.{_input_name(kind, position)}"))
            nt.set_node(here)
        return PNode(kind, path, attrs, exprs, inputs, schema, schema_objects)

    def expr(self, index: int, path: str, output_name: str | None = None) -> PExpr:
        try:
            view = self.nt.view_expression(index)
        except NotImplementedError as error:
            # Python functions (map_elements, map_batches): Polars' visitor does not show them.
            return PExpr("AnonymousFunction", {"reason": str(error)}, {}, output_name)
        kind = type(view).__name__
        if kind not in _EXPR_CHILDREN:
            raise InvalidPolarsPlanError(path, kind, f"expressions of kind {kind} are not read by prism_lineage")
        singles, lists = _EXPR_CHILDREN[kind]
        children: dict[str, PExpr | list[PExpr] | None] = {}
        attrs: dict[str, Any] = {}
        for name in dir(view):
            if name.startswith("_"):
                continue
            value = getattr(view, name)
            if name in singles:
                children[name] = None if value is None else self.expr(value, f"{path}.{name}")
            elif name in lists:
                items = value if isinstance(value, list) else [value]
                children[name] = [self.expr(v, f"{path}.{name}[{i}]") for i, v in enumerate(items)]
            else:
                attrs[name] = _plain(value)
        return PExpr(kind, attrs, children, output_name)


class _Unreadable(str):
    """An attribute Polars' visitor refuses to show (its message)."""


def _current(nt: Any) -> int:
    # The traverser has no getter for the current node; its set_node(get_node()) idiom.
    return nt.get_node()


def _input_name(kind: str, position: int) -> str:
    if kind == "Join":
        return ("input_left", "input_right")[position] if position < 2 else f"inputs[{position}]"
    if kind in ("Union", "HConcat", "MergeSorted", "ExtContext"):
        return f"inputs[{position}]"
    return "input" if position == 0 else f"inputs[{position}]"


def _plain(value: Any) -> Any:
    """Polars' enum-like objects as their text (``StringFunction.Uppercase``), containers
    converted item by item; numbers, strings, booleans and None as they are."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return _Opaque(value)


class _Opaque:
    """A Polars object kept as it is (dtypes, options objects), shown by its text."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return str(self.value)

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))
