"""The architecture, enforced on the source: the IR imports no frontend library, and nothing
downstream of the IR (lineage rules, graph, end-to-end resolution, explain answers, rewrites)
imports a frontend — they cannot know which frontend produced a plan."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "prism_lineage"
FRONTEND_LIBRARIES = ("sqlglot", "substrait", "google.protobuf", "datafusion", "polars", "pyspark")
DOWNSTREAM = ("ir", "lineage", "explain", "rewrite")


def imports(path: Path) -> list[str]:
    """Absolute module names a file imports (relative imports resolved against its package)."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            out.append(module)
    return out


# ``prism_lineage.explain`` itself is the public entry point: it takes SQL text (or a plan) and
# hands it to the right frontend; the answer it builds (answer, models, text) is downstream.
FACADES = {PACKAGE / "explain" / "__init__.py"}
FILES = sorted(p for part in DOWNSTREAM for p in (PACKAGE / part).rglob("*.py") if p not in FACADES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_downstream_of_the_ir_imports_no_frontend(path: Path) -> None:
    for module in imports(path):
        assert not any(module == lib or module.startswith(lib + ".") for lib in FRONTEND_LIBRARIES), module
        assert not module.startswith("prism_lineage.frontends"), module
        assert not module.startswith("prism_lineage.frame"), module


def test_the_check_sees_imports() -> None:
    found = imports(PACKAGE / "frontends" / "sql" / "parsing.py")
    assert any(m.startswith("sqlglot") for m in found)
    assert "prism_lineage.ir" in found or any(m.startswith("prism_lineage.ir") for m in found)
