"""Every concrete IR operator has its own lineage rule, in the module named after its family."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from dataclasses import dataclass

import pytest

import prism_lineage.ir
import prism_lineage.lineage.rules
from prism_lineage.ir import Relation
from prism_lineage.lineage.rules import RuleContext, UnsupportedOperator, plan_edges, rule_for

# Operators whose rule lives in a family module not named after the class itself.
FAMILY = {"CteRef": "cte", "RecursiveCte": "cte", "RecursiveRef": "cte"}


def _import_all(package) -> None:
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)


def operator_classes() -> list[type]:
    _import_all(prism_lineage.ir)
    _import_all(prism_lineage.lineage.rules)
    found, stack = [], list(Relation.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        # ``slots=True`` dataclasses replace their class; the replaced one lingers as a
        # subclass until collected: keep the class its module actually exports.
        module = sys.modules.get(cls.__module__)
        if cls.__module__.startswith("prism_lineage.") and getattr(module, cls.__qualname__, None) is cls:
            found.append(cls)
    return sorted(set(found), key=lambda c: c.__name__)


def family(cls: type) -> str:
    return FAMILY.get(cls.__name__) or re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def test_the_operators_of_the_ir_are_found() -> None:
    names = {cls.__name__ for cls in operator_classes()}
    assert {"Scan", "Values", "Project", "Filter", "Join", "Aggregate", "Window", "Sort", "Limit", "Distinct",
            "SetOperation", "CteRef", "RecursiveCte", "RecursiveRef"} <= names


@pytest.mark.parametrize("cls", operator_classes(), ids=lambda c: c.__name__)
def test_operator_has_its_own_rule(cls: type) -> None:
    assert cls in rule_for.registry, f"{cls.__name__} has no rule of its own (it would use its base's or the default)"
    rule = rule_for.registry[cls]
    module = rule.__module__.rpartition(".")[2]
    assert rule.__module__.startswith("prism_lineage.lineage.rules."), rule.__module__
    assert module == family(cls), f"the rule of {cls.__name__} is in {module}.py, expected {family(cls)}.py"


def test_an_operator_without_a_rule_fails_loudly() -> None:
    @dataclass(frozen=True, slots=True, eq=False)
    class Mystery(Relation):
        @property
        def fields(self):
            return ()

    with pytest.raises(UnsupportedOperator, match="no lineage rule for operator Mystery"):
        plan_edges(Mystery("s0.mystery", None), RuleContext())
