"""The message classes plans are read with: the ``substrait`` package's own schema, plus the
fields later Substrait releases removed but producers still write.

The generated classes of the installed ``substrait`` package (``substrait.plan_pb2`` …) no
longer know the deprecated fields older producers emit — ``Plan.extension_uris``, the
``extension_uri_reference`` of every extension declaration, ``Grouping.grouping_expressions``,
``FetchRel.offset``/``count`` and the old ``args`` of function calls.  Parsed with those
classes, a binary plan keeps them only as unknown bytes and a JSON plan fails (or, told to
ignore unknown fields, silently loses them).  So the plan is parsed with classes built from
the package's *own* descriptors, in a private descriptor pool, with exactly those fields put
back under their original numbers and JSON names.  Everything else is the package's schema,
unchanged; the classes behave like the generated ones (same field names, ``WhichOneof`` …).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, empty_pb2, message_factory
from google.protobuf.descriptor_pb2 import FieldDescriptorProto as F

_OPTIONAL = F.LABEL_OPTIONAL
_REPEATED = F.LABEL_REPEATED


@dataclass(frozen=True, slots=True)
class RestoredField:
    """A field a later release removed (its number is ``reserved`` in the package's schema)."""

    message: str  # path of the message inside its file, e.g. "AggregateRel.Grouping"
    name: str
    number: int
    type: int
    label: int = _OPTIONAL
    type_name: str | None = None  # for message fields, the fully qualified type
    optional: bool = False  # proto3 ``optional``: keeps presence (0 is not "unset")


# The fields older producers still write, by file (documented in specs/substrait.md).
RESTORED: dict[str, tuple[RestoredField, ...]] = {
    "substrait/extensions/extensions.proto": (
        RestoredField("SimpleExtensionDeclaration.ExtensionType", "extension_uri_reference", 1, F.TYPE_UINT32),
        RestoredField("SimpleExtensionDeclaration.ExtensionTypeVariation", "extension_uri_reference", 1,
                      F.TYPE_UINT32),
        RestoredField("SimpleExtensionDeclaration.ExtensionFunction", "extension_uri_reference", 1, F.TYPE_UINT32),
    ),
    "substrait/plan.proto": (
        RestoredField("Plan", "extension_uris", 1, F.TYPE_MESSAGE, _REPEATED,
                      ".substrait.extensions.SimpleExtensionURI"),
    ),
    "substrait/algebra.proto": (
        RestoredField("AggregateRel.Grouping", "grouping_expressions", 1, F.TYPE_MESSAGE, _REPEATED,
                      ".substrait.Expression"),
        RestoredField("ReadRel.VirtualTable", "values", 1, F.TYPE_MESSAGE, _REPEATED,
                      ".substrait.Expression.Literal.Struct"),
        RestoredField("FetchRel", "offset", 3, F.TYPE_INT64, optional=True),
        RestoredField("FetchRel", "count", 4, F.TYPE_INT64, optional=True),
        RestoredField("Expression.ScalarFunction", "args", 2, F.TYPE_MESSAGE, _REPEATED, ".substrait.Expression"),
        RestoredField("AggregateFunction", "args", 2, F.TYPE_MESSAGE, _REPEATED, ".substrait.Expression"),
        RestoredField("Expression.WindowFunction", "args", 8, F.TYPE_MESSAGE, _REPEATED, ".substrait.Expression"),
        RestoredField("HashJoinRel", "left_keys", 4, F.TYPE_MESSAGE, _REPEATED,
                      ".substrait.Expression.FieldReference"),
        RestoredField("HashJoinRel", "right_keys", 5, F.TYPE_MESSAGE, _REPEATED,
                      ".substrait.Expression.FieldReference"),
        RestoredField("MergeJoinRel", "left_keys", 4, F.TYPE_MESSAGE, _REPEATED,
                      ".substrait.Expression.FieldReference"),
        RestoredField("MergeJoinRel", "right_keys", 5, F.TYPE_MESSAGE, _REPEATED,
                      ".substrait.Expression.FieldReference"),
    ),
}

# Enum values later releases renamed, under their old names (aliases of the same numbers), so
# JSON plans that spell them so (DuckDB 1.1's ``JOIN_TYPE_SEMI``) parse.
RENAMED_ENUM_VALUES: dict[str, dict[str, tuple[tuple[str, int], ...]]] = {
    "substrait/algebra.proto": {
        "JoinRel.JoinType": (("JOIN_TYPE_SEMI", 5), ("JOIN_TYPE_ANTI", 6), ("JOIN_TYPE_SINGLE", 7)),
    },
}

_lock = threading.Lock()


class PlanSchema:
    """The private pool and the message classes the reader uses."""

    __slots__ = ("pool", "plan_class", "_placeholders")

    def __init__(self) -> None:
        from substrait import algebra_pb2, plan_pb2, type_pb2
        from substrait.extensions import extensions_pb2

        self.pool = descriptor_pool.DescriptorPool()
        for module in (any_pb2, empty_pb2):
            self.pool.Add(descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb))
        for module in (type_pb2, extensions_pb2, algebra_pb2, plan_pb2):
            file = descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb)
            _restore(file)
            self.pool.Add(file)
        self.plan_class = message_factory.GetMessageClass(self.pool.FindMessageTypeByName("substrait.Plan"))
        self._placeholders: set[str] = set()

    def message_class(self, full_name: str):
        return message_factory.GetMessageClass(self.pool.FindMessageTypeByName(full_name))

    def knows(self, full_name: str) -> bool:
        try:
            self.pool.FindMessageTypeByName(full_name)
        except KeyError:
            return False
        return True

    def is_placeholder(self, full_name: str) -> bool:
        return full_name in self._placeholders

    def add_placeholder(self, full_name: str) -> None:
        """An empty message type named ``full_name``, so that a JSON ``Any`` holding a type the
        reader does not know (an extension relation's private detail) still parses: its type
        URL is kept, its content — opaque to lineage anyway — is not."""
        with _lock:
            if full_name in self._placeholders or self.knows(full_name):
                return
            package, _, name = full_name.rpartition(".")
            file = descriptor_pb2.FileDescriptorProto(
                name=f"prism_lineage/placeholders/{full_name}.proto", package=package, syntax="proto3",
            )
            file.message_type.add(name=name)
            self.pool.Add(file)
            self._placeholders.add(full_name)


@cache
def plan_schema() -> PlanSchema:
    return PlanSchema()


def _restore(file: descriptor_pb2.FileDescriptorProto) -> None:
    if file.name == "substrait/extensions/extensions.proto":
        uri = file.message_type.add(name="SimpleExtensionURI")
        uri.field.add(name="extension_uri_anchor", json_name="extensionUriAnchor", number=1,
                      type=F.TYPE_UINT32, label=_OPTIONAL)
        uri.field.add(name="uri", json_name="uri", number=2, type=F.TYPE_STRING, label=_OPTIONAL)
    for path, values in RENAMED_ENUM_VALUES.get(file.name, {}).items():
        message_path, _, enum_name = path.rpartition(".")
        enum = next(e for e in _message(file, message_path).enum_type if e.name == enum_name)
        known = {v.name for v in enum.value}
        for name, number in values:
            if name not in known:
                enum.value.add(name=name, number=number)
                enum.options.allow_alias = True
    for restored in RESTORED.get(file.name, ()):
        message = _message(file, restored.message)
        if any(f.number == restored.number or f.name == restored.name for f in message.field):
            continue  # a schema that still has the field needs nothing
        for ranges in list(message.reserved_range):
            if ranges.start <= restored.number < ranges.end:
                message.reserved_range.remove(ranges)
        if restored.name in message.reserved_name:
            message.reserved_name.remove(restored.name)
        field = message.field.add(name=restored.name, json_name=_camel(restored.name), number=restored.number,
                                  type=restored.type, label=restored.label)
        if restored.type_name:
            field.type_name = restored.type_name
        if restored.optional:
            # proto3 ``optional``: a synthetic oneof gives the field presence.
            field.proto3_optional = True
            field.oneof_index = len(message.oneof_decl)
            message.oneof_decl.add(name=f"_{restored.name}")


def _message(file: descriptor_pb2.FileDescriptorProto, path: str) -> descriptor_pb2.DescriptorProto:
    messages = file.message_type
    found = None
    for part in path.split("."):
        found = next(m for m in messages if m.name == part)
        messages = found.nested_type
    assert found is not None
    return found


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
