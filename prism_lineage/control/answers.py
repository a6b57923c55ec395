"""The governance answers built on the store's read path, without pydantic.

Each class has the attributes and the JSON of its model in ``governance/answers.py`` — same keys,
same order, same aliases, byte for byte — so that ``governance/text.py`` renders either and an
answer from the store is byte-identical to the one the sync computed.  Building and importing
pydantic models costs more than answering from the store (tens of milliseconds at start-up);
``to_model()`` gives the pydantic model when a caller wants one.
``tests/control/test_store_answers.py`` checks the fields against the models.
"""

from __future__ import annotations

import json


class _Light:
    __slots__ = ()
    FIELDS: tuple[tuple[str, str], ...] = ()  # (attribute, JSON key), in the model's order
    MODEL = ""  # the pydantic model's name in governance/answers.py

    def __init__(self, **values):
        for attribute, _ in self.FIELDS:
            object.__setattr__(self, attribute, values.pop(attribute) if attribute in values else None)
        if values:
            raise TypeError(f"{type(self).__name__}: unknown fields {sorted(values)}")

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and all(getattr(self, a) == getattr(other, a) for a, _ in self.FIELDS)

    def __repr__(self) -> str:
        inner = ", ".join(f"{a}={getattr(self, a)!r}" for a, _ in self.FIELDS)
        return f"{type(self).__name__}({inner})"

    def to_dict(self) -> dict:
        """The answer as plain data, keyed as its JSON is (``from``/``to`` for edges)."""
        return {key: _plain(getattr(self, attribute)) for attribute, key in self.FIELDS}

    def to_json(self, indent: int | None = 2) -> str:
        if indent is None:
            return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def to_model(self):
        """The pydantic model of ``governance/answers.py`` holding the same answer."""
        from ..governance import answers

        return getattr(answers, self.MODEL).model_validate_json(self.to_json(None))


def _plain(value):
    if isinstance(value, _Light):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _fields(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple((name.split(":")[0], name.split(":")[-1]) for name in names)


class AssetNode(_Light):
    __slots__ = ("id", "name", "kind", "owner", "steward", "certified", "sql_status", "sql_read_from",
                 "reads_at_least", "note", "notes", "distance")
    FIELDS = _fields(*__slots__)
    MODEL = "AssetNode"


class ColumnEdge(_Light):
    __slots__ = ("source", "target", "relationship", "transformation", "confidence")
    FIELDS = _fields("source:from", "target:to", "relationship", "transformation", "confidence")
    MODEL = "ColumnEdge"


class EdgeRow(_Light):
    __slots__ = ("source", "target", "source_name", "target_name", "mark", "line", "via", "file", "columns", "note",
                 "revision", "run_id", "seen_at")
    FIELDS = _fields("source:from", "target:to", "source_name:from_name", "target_name:to_name", "mark", "line",
                     "via", "file", "columns", "note", "revision", "run_id", "seen_at")
    MODEL = "EdgeRow"

    def to_dict(self) -> dict:
        data = super().to_dict()
        if self.mark != "observed":  # an observed edge's run and time only (as the model)
            data.pop("run_id", None)
            data.pop("seen_at", None)
        return data


class LegendEntry(_Light):
    __slots__ = ("mark", "line", "status")
    FIELDS = _fields(*__slots__)
    MODEL = "LegendEntry"


class ExplorerAnswer(_Light):
    __slots__ = ("project", "environment", "environment_status", "asset", "direction", "depth", "marks", "legend",
                 "cut", "holds", "assets", "edges", "sql_not_read", "notes")
    FIELDS = _fields(*__slots__)
    MODEL = "ExplorerAnswer"


class ImpactAsset(_Light):
    __slots__ = ("id", "name", "kind", "owner", "steward", "certified", "sql_status")
    FIELDS = _fields(*__slots__)
    MODEL = "ImpactAsset"


class ImpactAnswer(_Light):
    __slots__ = ("project", "environment", "environment_status", "asset", "marks", "at_least", "count", "by_kind",
                 "assets", "sql_not_read", "notes")
    FIELDS = _fields(*__slots__)
    MODEL = "ImpactAnswer"


class Refusal(_Light):
    __slots__ = ("code", "message")
    FIELDS = _fields(*__slots__)
    MODEL = "Refusal"


class RefusalAnswer(_Light):
    __slots__ = ("error",)
    FIELDS = _fields(*__slots__)
    MODEL = "RefusalAnswer"


LIGHT_ANSWERS = (AssetNode, ColumnEdge, EdgeRow, LegendEntry, ExplorerAnswer, ImpactAsset, ImpactAnswer, Refusal,
                 RefusalAnswer)
