"""Reading a Substrait ``Plan``: from a file, bytes or text, binary protobuf or JSON.

The message classes are those of ``compat`` (the ``substrait`` package's schema plus the
deprecated fields older producers write).  Errors are typed and name the input: an unreadable
file is an ``InputError`` (exit 3); bytes that are neither a binary ``Plan`` nor its JSON form
are a ``PlanDecodeError`` (exit 4).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from google.protobuf.unknown_fields import UnknownFieldSet

from ...errors import InputError
from ...guarded import run_guarded
from .compat import plan_schema
from .errors import PlanDecodeError

_JSON_START = b"{"
# Plans nest deeply (every relation and expression is a level); protobuf's default limit of
# 100 levels would refuse plans of a few dozen relations.
_MAX_DEPTH = 100_000


def allow_deep_plans() -> None:
    """Kept for callers of earlier versions: deep plans are now decoded and lowered on the
    deep-stack worker (``prism_lineage.guarded``), which raises the recursion limit only
    there, where the C stack holds it."""


def read_plan_file(path: str | Path) -> tuple[Message, str]:
    """(plan, format) read from ``path``; format is ``"binary"`` or ``"json"``."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"Substrait plan file not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a Substrait plan file") from None
    except OSError as error:
        raise InputError(f"cannot read Substrait plan file {path}: {error.strerror or error}") from None
    return decode_plan(data, source=str(path))


def decode_plan(data: bytes | str, *, source: str = "the Substrait plan") -> tuple[Message, str]:
    """Parse ``data`` as the JSON form of a plan when it starts with ``{``, else as binary."""
    if isinstance(data, str):
        return decode_json(data, source=source), "json"
    if data.lstrip()[:1] == _JSON_START:
        # A binary Plan never starts with '{' (0x7b would open field 15 as a group).
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise PlanDecodeError(f"{source} looks like JSON but is not UTF-8 text: {error.reason}") from None
        return decode_json(text, source=source), "json"
    return decode_binary(data, source=source), "binary"


def decode_binary(data: bytes, *, source: str = "the Substrait plan") -> Message:
    schema = plan_schema()
    plan = schema.plan_class()
    if not data:
        raise PlanDecodeError(f"{source} is empty: expected a Substrait plan (binary protobuf or JSON)")
    try:
        plan.ParseFromString(data)
    except DecodeError as error:
        if not _allow_deep_messages():
            raise PlanDecodeError(f"{source} is not a Substrait plan (binary protobuf or JSON): {error}") from None
        try:
            # Again, past the 100 levels protobuf allows by default: the runtime recurses per
            # level on the C stack, so on the deep-stack worker (10,000 levels crash 8 MiB).
            run_guarded(plan.ParseFromString, data)
        except DecodeError:
            raise PlanDecodeError(f"{source} is not a Substrait plan (binary protobuf or JSON): {error}") from None
    if len(UnknownFieldSet(plan)) and not plan.relations:
        # Arbitrary bytes often decode as a message of unknown fields: nothing of a Plan.
        raise PlanDecodeError(f"{source} is not a Substrait plan (binary protobuf or JSON): "
                              "none of its fields belongs to a Plan")
    return plan


def decode_json(text: str, *, source: str = "the Substrait plan") -> Message:
    schema = plan_schema()
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise PlanDecodeError(
            f"{source} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    if not isinstance(document, dict):
        raise PlanDecodeError(f"{source}: a Substrait plan in JSON is an object, not {type(document).__name__}")
    _register_unknown_any_types(document, schema)
    plan = schema.plan_class()
    try:
        run_guarded(json_format.ParseDict, document, plan, descriptor_pool=schema.pool,
                    max_recursion_depth=_MAX_DEPTH)
    except json_format.ParseError as error:
        raise PlanDecodeError(f"{source} is not a Substrait plan in JSON: {error}") from None
    return plan


def _allow_deep_messages() -> bool:
    """Lift the protobuf runtime's nesting limit for binary messages, where it can be (the
    upb runtime's "oversize" mode, for this process); whether there was one to lift."""
    try:
        from google._upb import _message
    except ImportError:  # the pure-Python runtime has no such limit to lift
        return False
    _message.SetAllowOversizeProtos(True)
    return True


def _register_unknown_any_types(document: Any, schema) -> None:
    """Let ``google.protobuf.Any`` values of types the reader does not know parse: their
    ``@type`` is kept and their content (opaque to lineage) is dropped."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            type_url = node.get("@type")
            if isinstance(type_url, str) and type_url:
                full_name = type_url.rpartition("/")[2]
                if full_name and (schema.is_placeholder(full_name) or not schema.knows(full_name)):
                    schema.add_placeholder(full_name)
                    for key in [k for k in node if k != "@type"]:
                        del node[key]
                    continue
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def iter_messages(plan: Message) -> Iterator[tuple[Message, str]]:
    """Every message of a plan with its path (``relations[0].root.input.read``)."""
    stack: list[tuple[Message, str]] = [(plan, "")]
    while stack:
        message, path = stack.pop()
        yield message, path
        for descriptor, value in message.ListFields():
            if descriptor.message_type is None or descriptor.message_type.GetOptions().map_entry:
                continue
            name = f"{path}.{descriptor.name}" if path else descriptor.name
            if _repeated(descriptor):
                stack.extend((item, f"{name}[{i}]") for i, item in enumerate(value))
            else:
                stack.append((value, name))


def unknown_fields(plan: Message) -> list[str]:
    """Where a binary plan holds fields the reader's schema does not know (a newer producer's
    additions): ``<path>#<field number>`` each, so they are reported, never silently dropped."""
    return sorted(f"{path or 'plan'}#{unknown.field_number}"
                  for message, path in iter_messages(plan) for unknown in UnknownFieldSet(message))


def _repeated(descriptor) -> bool:
    flag = getattr(descriptor, "is_repeated", None)  # protobuf >= 6; ``label`` before
    return flag if isinstance(flag, bool) else descriptor.label == descriptor.LABEL_REPEATED
