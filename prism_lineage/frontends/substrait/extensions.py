"""Extension declarations: which function (and type) each anchor of a plan stands for.

A plan declares its functions in ``extensions``: an anchor, a name — plain (``add``) or
compound with a signature (``add:i64_i64``) — and a reference to the extension that defines
it: an extension URN (``extension:io.substrait:functions_arithmetic``) in current plans, an
extension URI (``…/extensions/functions_arithmetic.yaml``) in plans from older producers.
A function is a **standard** one when the standard Substrait extension it names (read from
the ``substrait-extensions`` package) declares it; producers that give no extension at all
(DataFusion writes the reference ``4294967295`` and declares no URN) are resolved by name
against every standard extension, and against the few SQL functions no standard extension
declares (``GROUPING``), which are read as the SQL frontend reads them.  Anything else — a function of a private extension — is
not known to the engine: the lineage rules treat it as opaque unless the function registry
describes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from google.protobuf.message import Message

from .errors import InvalidPlanError

# Substrait's standard names for operators, spelled as the SQL frontend names the same
# operations, so that the graph and the function registry see one name per operation.
_IR_NAMES = {
    "equal": "eq",
    "not_equal": "neq",
    "subtract": "sub",
    "multiply": "mul",
    "divide": "div",
    "modulus": "mod",
    "negate": "neg",
    "std_dev": "stddev",
}
# Names producers that declare no extension (DataFusion) write for standard functions.
_PRODUCER_NAMES = {
    "bitwise_shift_left": "shift_left",
    "bitwise_shift_right": "shift_right",
    "btrim": "trim",
    "character_length": "char_length",
    "date_part": "extract",
    "stddev": "std_dev",
    "str_concat": "concat",
    "to_char": "strftime",
}
# DuckDB declares many standard functions under the standard extensions' *directory*
# (``…/substrait/blob/main/extensions/``) rather than a file, or under no extension at all,
# and writes a few operators by its own symbols.  Negated LIKE reads the same arguments as LIKE: the same lineage.
_DUCKDB_NAMES = {
    "||": "concat",
    "~~": "like",
    "!~~": "like",
    "~~*": "like",
    "!~~*": "like",
    "^@": "starts_with",
}
_AGGREGATE = "aggregate"
_WINDOW = "window"
_SCALAR = "scalar"
# SQL's own functions that no standard Substrait extension declares, which producers that name
# no extension (DataFusion) write under their SQL name: read as the SQL frontend reads them.
# GROUPING(k, …) says which grouping set yielded a row — an aggregate over the group keys
# (sqlglot's ``exp.Grouping`` is an aggregate function; the SQL frontend makes it a measure).
_SQL_FUNCTIONS = {"grouping": _AGGREGATE}


@dataclass(frozen=True, slots=True)
class StandardExtension:
    urn: str
    file: str  # the YAML file's name, which extension URIs end with
    functions: dict[str, str]  # name → scalar | aggregate | window


@cache
def standard_extensions() -> dict[str, StandardExtension]:
    """The standard Substrait extensions, by URN (read once from ``substrait-extensions``)."""
    import yaml

    out: dict[str, StandardExtension] = {}
    for entry in resources.files("substrait_extensions.extensions").iterdir():
        if not entry.name.endswith(".yaml") or entry.name.startswith("simple_extensions"):
            continue
        document = yaml.safe_load(entry.read_text(encoding="utf-8")) or {}
        # Files from before URNs existed are named by their file: the URN they later got.
        urn = document.get("urn") or f"extension:io.substrait:{entry.name.removesuffix('.yaml')}"
        functions: dict[str, str] = {}
        for section, kind in (("scalar_functions", _SCALAR), ("aggregate_functions", _AGGREGATE),
                              ("window_functions", _WINDOW)):
            for function in document.get(section) or []:
                functions.setdefault(str(function["name"]).lower(), kind)
        out[urn] = StandardExtension(urn, entry.name, functions)
    return out


@cache
def _standard_by_file() -> dict[str, StandardExtension]:
    return {ext.file: ext for ext in standard_extensions().values()}


@cache
def _standard_kind_by_name() -> dict[str, str]:
    kinds: dict[str, str] = {}
    for ext in standard_extensions().values():
        for name, kind in ext.functions.items():
            # A name that is an aggregate anywhere (min, max …) is an aggregate.
            if kinds.get(name) != _AGGREGATE:
                kinds[name] = kind
    return kinds


@dataclass(frozen=True, slots=True)
class FunctionDecl:
    """One declared function.  ``extension`` is the URN or URI the plan names (``None``: the
    plan names none); ``standard``: a standard Substrait extension declares it (or, in a plan
    that names none, it is one of SQL's own functions no extension declares): a known built-in;
    ``kind``: scalar, aggregate or window when known."""

    anchor: int
    name: str
    signature: str | None
    extension: str | None
    standard: bool
    kind: str | None

    @property
    def ir_name(self) -> str:
        """The name the IR (and the function registry) knows the function by."""
        return _IR_NAMES.get(self.name, self.name)

    @property
    def is_aggregate(self) -> bool:
        return self.kind == _AGGREGATE

    def describe(self) -> str:
        where = self.extension or "no extension named"
        return f"{self.name} ({where})"


class Extensions:
    """The functions and types a plan declares, by anchor."""

    __slots__ = ("functions", "type_names", "urns", "uris")

    def __init__(self, plan: Message):
        self.urns: dict[int, str] = {u.extension_urn_anchor: u.urn for u in plan.extension_urns}
        self.uris: dict[int, str] = {u.extension_uri_anchor: u.uri for u in plan.extension_uris}
        self.functions: dict[int, FunctionDecl] = {}
        self.type_names: dict[int, str] = {}
        for position, declaration in enumerate(plan.extensions):
            kind = declaration.WhichOneof("mapping_type")
            if kind == "extension_function":
                decl = self._function(declaration.extension_function)
                if decl.anchor in self.functions and self.functions[decl.anchor] != decl:
                    raise InvalidPlanError(
                        f"extensions[{position}]",
                        f"function anchor {decl.anchor} is declared twice "
                        f"({self.functions[decl.anchor].name} and {decl.name})",
                    )
                self.functions[decl.anchor] = decl
            elif kind == "extension_type":
                declared = declaration.extension_type
                self.type_names[declared.type_anchor] = _plain_name(declared.name)[0].upper()

    def function(self, anchor: int, path: str) -> FunctionDecl:
        found = self.functions.get(anchor)
        if found is None:
            declared = ", ".join(f"{a} ({d.name})" for a, d in sorted(self.functions.items())) or "none"
            raise InvalidPlanError(path, f"function reference {anchor} is not declared in the plan's extensions "
                                         f"(declared: {declared})")
        return found

    def _function(self, declared: Message) -> FunctionDecl:
        name, signature = _plain_name(declared.name)
        extension = self._extension_of(declared)
        standard_ext = _standard_extension(extension)
        if extension is not None and standard_ext is None and _is_standard_directory(extension):
            # The standard extensions' directory (DuckDB): any standard extension, by name.
            name = _DUCKDB_NAMES.get(name, name)
            kind = _standard_kind_by_name().get(name)
            standard = kind is not None
        elif extension is None:
            name = _PRODUCER_NAMES.get(name) or _DUCKDB_NAMES.get(name, name)
            kind = _standard_kind_by_name().get(name) or _SQL_FUNCTIONS.get(name)
            standard = kind is not None
        elif standard_ext is not None:
            kind = standard_ext.functions.get(name)
            standard = kind is not None
        else:
            kind, standard = None, False
        return FunctionDecl(declared.function_anchor, name, signature, extension, standard, kind)

    def _extension_of(self, declared: Message) -> str | None:
        """The URN (or, from older producers, the URI) a declaration refers to; ``None`` when
        the reference points at nothing the plan declares (DataFusion writes 4294967295)."""
        urn = self.urns.get(declared.extension_urn_reference)
        if urn is not None:
            return urn
        return self.uris.get(declared.extension_uri_reference)


def _plain_name(name: str) -> tuple[str, str | None]:
    """``add:i64_i64`` → (``add``, ``i64_i64``); names are matched in lower case."""
    plain, _, signature = name.partition(":")
    return plain.strip().lower(), signature or None


_URI_FILE = re.compile(r"([^/\\?#]+\.ya?ml)(?:[?#].*)?$")


def _standard_extension(extension: str | None) -> StandardExtension | None:
    if extension is None:
        return None
    found = standard_extensions().get(extension)
    if found is not None:
        return found
    # An extension URI names the standard YAML file it was published as.
    match = _URI_FILE.search(extension)
    if match is None:
        return None
    file = match.group(1)
    if not _is_standard_location(extension):
        return None
    return _standard_by_file().get(file)


def _is_standard_directory(uri: str) -> bool:
    """The directory of the standard extensions, not one of its files (DuckDB writes
    ``https://github.com/substrait-io/substrait/blob/main/extensions/``)."""
    return _is_standard_location(uri) and "/" in uri and uri.rstrip("/").endswith("/extensions")


def _is_standard_location(uri: str) -> bool:
    """Standard extension URIs: the substrait repository's files, or the bare ``/name.yaml``
    form Isthmus and Acero write."""
    return "substrait-io/substrait" in uri or "substrait.io" in uri or uri.startswith("/") or "/" not in uri
