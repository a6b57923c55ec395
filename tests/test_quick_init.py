"""``ir.quick.quick_init`` (a faster ``__init__`` for the frozen dataclasses of the IR and the
lineage edges) must build exactly what dataclasses' own ``__init__`` builds, for every class
it decorates: same parameters (names, order, kinds, defaults), same field values, still
frozen, and ``replace``, equality, hashing and pickling unchanged."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

import prism_lineage.explain  # noqa: F401 - imports every module whose classes are decorated
import prism_lineage.governance.sql_reading  # noqa: F401 - the sync's reads (ColumnLink …)
from prism_lineage.ir.quick import ORIGINAL_INITS, quick_init

CLASSES = sorted(ORIGINAL_INITS, key=lambda c: f"{c.__module__}.{c.__qualname__}")


def test_the_ir_and_the_edges_are_decorated() -> None:
    names = {c.__qualname__ for c in CLASSES}
    assert {"Edge", "Link", "Field", "FieldRef", "Call", "Literal", "Scan", "Project", "Join", "Statement"} <= names
    assert {"ColumnLink", "Dependency", "StatementRead"} <= names


def _arguments(cls, signature: inspect.Signature, every: bool) -> tuple[list, dict]:
    """Distinct picklable values for the parameters (all of them, or only those without a default)."""
    args, kwargs = [], {}
    for position, parameter in enumerate(list(signature.parameters.values())[1:]):
        if not every and parameter.default is not inspect.Parameter.empty:
            continue
        value = f"{cls.__qualname__}.{parameter.name}.{position}"
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        else:
            args.append(value)
    return args, kwargs


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_quick_init_builds_what_the_dataclass_init_builds(cls) -> None:
    original = ORIGINAL_INITS[cls]
    quick, reference = inspect.signature(cls.__init__), inspect.signature(original)
    assert [(p.name, p.kind, p.default) for p in quick.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in reference.parameters.values()]
    names = [f.name for f in dataclasses.fields(cls)]
    for every in (True, False):
        args, kwargs = _arguments(cls, reference, every)
        built = cls(*args, **kwargs)
        expected = object.__new__(cls)
        original(expected, *args, **kwargs)
        assert [getattr(built, n) for n in names] == [getattr(expected, n) for n in names]
        assert all(getattr(built, n) is getattr(expected, n) for n in names)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(built, names[0], "changed")
        again = dataclasses.replace(built)
        assert [getattr(again, n) for n in names] == [getattr(built, n) for n in names]
        restored = pickle.loads(pickle.dumps(built))
        assert [getattr(restored, n) for n in names] == [getattr(built, n) for n in names]
        if cls.__dataclass_params__.eq:
            assert built == expected and hash(built) == hash(expected)
    with pytest.raises(TypeError):
        cls(*_arguments(cls, reference, False)[0], unknown_parameter=1)


def test_classes_it_cannot_serve_are_refused_when_decorated() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class WithFactory:
        items: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithPostInit:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithInitVar:
        a: int
        b: dataclasses.InitVar[int] = 0

    @dataclasses.dataclass(frozen=True)
    class WithoutSlots:
        a: int

    for cls in (WithFactory, WithPostInit, WithInitVar, WithoutSlots):
        with pytest.raises(TypeError):
            quick_init(cls)
