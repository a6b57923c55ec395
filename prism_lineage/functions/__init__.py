"""The function registry: lineage-relevant facts about functions.

Most functions need no entry: a built-in the frontend recognises is a plain expression over
all its arguments (exact).  The registry describes the ones whose lineage is not derivable
from their argument structure: masks (``sha2``, ``md5`` …), functions whose arguments are
partly control-only, format parsers, and user-defined functions.  A function the frontend
does not recognise and the registry does not describe is **opaque**, with conservative
confidence and a reason naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..ir import Call
from ..lineage.kinds import Confidence, Transformation


@dataclass(frozen=True, slots=True)
class FunctionInfo:
    """Lineage facts about one function.

    ``value_args``: positions of the arguments whose values flow into the result (``None``:
    all of them); the others only decide *which* value is produced and are read as control.
    ``kind``: scalar, aggregate, window, generator or table.
    """

    name: str
    transformation: Transformation = Transformation.EXPRESSION
    confidence: Confidence = Confidence.EXACT
    value_args: tuple[int, ...] | None = None
    kind: str = "scalar"
    deterministic: bool = True
    doc: str | None = None


# Hashes and masking functions: the output is derived from the input but does not reveal it.
_MASKS = (
    "md5", "sha", "sha1", "sha2", "sha256", "sha512", "hash", "farm_fingerprint", "md5_hex", "sha1_hex",
    "sha2_hex", "md5_binary", "sha1_binary", "sha2_binary", "mask", "mask_hash", "mask_first_n",
    "mask_last_n", "mask_show_first_n", "mask_show_last_n", "redact", "crc32", "xxhash64", "murmur3_hash",
)
_NONDETERMINISTIC = ("rand", "random", "uuid", "gen_random_uuid", "newid", "now", "current_timestamp")


def builtin_functions() -> list[FunctionInfo]:
    infos = [FunctionInfo(name, Transformation.MASK, doc="masks its input") for name in _MASKS]
    infos += [FunctionInfo(name, deterministic=False) for name in _NONDETERMINISTIC]
    return infos


class FunctionRegistry:
    """Function facts by lower-case name; ``classify`` answers the lineage rules."""

    __slots__ = ("_infos",)

    def __init__(self, infos: Iterable[FunctionInfo] = ()):
        self._infos: dict[str, FunctionInfo] = {}
        for info in infos:
            self.register(info)

    @classmethod
    def default(cls) -> "FunctionRegistry":
        return cls(builtin_functions())

    def register(self, info: FunctionInfo) -> None:
        self._infos[info.name.lower()] = info

    def get(self, name: str) -> FunctionInfo | None:
        return self._infos.get(name.lower())

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._infos

    def classify(self, call: Call) -> tuple[Transformation, Confidence, str | None, tuple[int, ...] | None]:
        """(transformation, confidence, reason, value argument positions) for a call."""
        info = self._infos.get(call.function)
        if info is not None:
            reason = None
            if info.confidence is not Confidence.EXACT:
                reason = f"function {call.function} is declared {info.confidence.value}"
            return info.transformation, info.confidence, reason, info.value_args
        if call.known:
            return Transformation.EXPRESSION, Confidence.EXACT, None, None
        return (
            Transformation.OPAQUE,
            Confidence.CONSERVATIVE,
            f"function {call.function} is not in the function registry: every argument is assumed to flow "
            "into its result",
            None,
        )

    def load(self, document: Mapping[str, Any], source: str = "functions") -> "FunctionRegistry":
        """Add the functions of a YAML/JSON document (see docs/functions.md)."""
        entries = document.get("functions", document) if isinstance(document, Mapping) else None
        if not isinstance(entries, Mapping):
            raise InputError(f"{source}: expected a mapping of function names to their lineage facts")
        for name, spec in entries.items():
            spec = spec or {}
            if not isinstance(spec, Mapping):
                raise InputError(f"{source}: function '{name}' must map to its facts, got {type(spec).__name__}")
            try:
                info = FunctionInfo(
                    str(name).lower(),
                    Transformation(spec.get("transformation", "expression")),
                    Confidence(spec.get("confidence", "exact")),
                    tuple(spec["value_args"]) if spec.get("value_args") is not None else None,
                    str(spec.get("kind", "scalar")),
                    bool(spec.get("deterministic", True)),
                    spec.get("doc"),
                )
            except ValueError as error:
                raise InputError(f"{source}: function '{name}': {error}") from None
            self.register(info)
        return self

    def load_file(self, path: str | Path) -> "FunctionRegistry":
        from ..catalog import parse_schema_text

        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot read functions file {path}: {error.strerror or error}") from None
        return self.load(parse_schema_text(text, str(path)), f"functions file {path}")
