"""Speed work on the project load and the rollup, each checked against the slow way.

The loader's fast YAML path (``files._plain_document``) builds exactly what PyYAML's own
constructor (``files._Loader``, duplicate keys refused) builds, and never answers where PyYAML
refuses: anything it does not handle itself is left to PyYAML (``load_yaml`` falls back).  The
rollup's reading order (``rollup.topological_order``) is networkx's ``topological_sort``."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from prism_lineage.governance import files
from prism_lineage.governance.errors import ProjectError

ROOT = Path(__file__).resolve().parents[2]


def typed(value):
    """``value`` with every scalar's type spelt out: ``1 == True == 1.0`` in Python, not here."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    return (type(value).__name__, value)


def outcome(load, text):
    try:
        return "value", typed(load(text))
    except Exception as error:  # noqa: BLE001 - compared with the reference's
        return "error", type(error).__name__


def reference(text):
    return yaml.load(text, Loader=files._Loader)  # noqa: S506 - a safe loader


def check(text):
    expected = outcome(reference, text)
    found = outcome(files._plain_document, text)
    if found[0] == "value":
        # The fast path answers only what PyYAML answers, and the same.
        assert found == expected, text
    # Through load_yaml's fallback the outcome is always PyYAML's.
    try:
        with files._bounded_recursion():
            try:
                document = files._plain_document(text)
            except Exception:  # noqa: BLE001 - as load_yaml
                document = reference(text)
        got = "value", typed(document)
    except Exception as error:  # noqa: BLE001
        got = "error", type(error).__name__
    assert got == expected, text


KEYS = st.sampled_from(["a", "b", "name", "1", "01", "true", "yes", "~", "null", "'a'", '"b"', "2001-12-14",
                        "3.5", "0x1f", "<<", "? [x]", "[x, y]", "{k: v}", "!!str 1", "!!int 7", "a b", "é"])
SCALARS = st.sampled_from([
    "x", "'quoted'", '"dq \\u00e9"', "1", "-2", "0o17", "0x1F", "1_000", "3.25", ".inf", "-.Inf", ".nan", "1e3",
    "true", "False", "yes", "No", "on", "OFF", "~", "null", "", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
    "12:30:00", "!!str 12", "!!float 1", "!!binary aGVsbG8=", "!!bool yes", "!!null ''", "!foo bar", "!!set {a}",
    "=", "SELECT a FROM t", "a: b", "'it''s'", "!!int x",
])


@st.composite
def flow(draw, depth=0):
    choice = draw(st.integers(0, 5 if depth < 3 else 1))
    if choice <= 1:
        return draw(SCALARS)
    if choice == 2:
        items = draw(st.lists(flow(depth + 1), max_size=3))
        return "[" + ", ".join(items) + "]"
    if choice == 3:
        pairs = draw(st.lists(st.tuples(KEYS, flow(depth + 1)), max_size=3))
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if choice == 4:
        return f"&a{draw(st.integers(0, 2))} " + draw(flow(depth + 1))
    return f"*a{draw(st.integers(0, 2))}"


@st.composite
def documents(draw):
    lines = []
    for key, value in draw(st.lists(st.tuples(KEYS, flow()), min_size=0, max_size=5)):
        lines.append(f"{key}: {value}")
        if draw(st.booleans()):
            lines.append(f"  # a comment after {key}")
    return draw(st.sampled_from(["", "%YAML 1.1\n---\n", "--- !!map\n", "---\n"])) + "\n".join(lines) + "\n"


@given(documents())
@settings(max_examples=300, deadline=None)
def test_the_fast_path_builds_what_pyyaml_builds(text):
    check(text)


@pytest.mark.parametrize("text", [
    "",  # no document
    "a: 1\n---\nb: 2\n",  # two documents
    "a: [1, 2\n",  # not YAML
    "a: 1\na: 2\n",  # a duplicate key
    "1: x\ntrue: y\n",  # equal keys of two types
    "base: &b {x: 1}\n<<: *b\n",  # a merge key
    "a: &r [*r]\n",  # an alias inside what it names
    "a: &s x\nb: *s\n",
    "a: &m {k: v}\nb: *m\nc: *m\n",  # one mapping twice: the same object, as PyYAML gives
    "? [a, b]\n: c\n",  # an unhashable key
    "!!set {a, b}\n",
    "!!omap [a: 1]\n",
    "a: !!timestamp 2001-12-14\n",
    "a: !!python/object:os.system x\n",  # refused by the safe constructor
    "- a\n- {b: c}\n",
    "a: 2001-12-14\nb: 2001-12-14 21:59:43.10 -5\n",
    "sql: |\n  SELECT a\n  FROM t\n",
    "a: " + "[" * 40 + "]" * 40 + "\n",
])
def test_edge_cases(text):
    check(text)


def test_an_alias_gives_the_same_object_as_pyyaml_does():
    document = files._plain_document("a: &m {k: v}\nb: *m\n")
    assert document["a"] is document["b"]
    assert document == {"a": {"k": "v"}, "b": {"k": "v"}}


def test_every_yaml_file_of_the_repository_loads_alike():
    found = [p for d in ("examples", "tests/fixtures", "tests/governance") if (ROOT / d).is_dir()
             for p in (ROOT / d).rglob("*.y*ml")]
    assert found
    for path in found:
        check(path.read_text(encoding="utf-8", errors="replace"))


def test_a_date_is_a_date_and_refusals_are_pyyamls(tmp_path):
    (tmp_path / "d.yaml").write_text("when: 2001-12-14\nn: 0x10\n")
    assert files.load_yaml(tmp_path, "d.yaml") == {"when": datetime.date(2001, 12, 14), "n": 16}
    (tmp_path / "dup.yaml").write_text("a: 1\nb: 2\na: 3\n")
    with pytest.raises(ProjectError, match="key 'a' is given twice, at lines 1 and 3"):
        files.load_yaml(tmp_path, "dup.yaml")
    (tmp_path / "bad.yaml").write_text("a: [1, 2\n")
    with pytest.raises(ProjectError, match="bad.yaml is not valid YAML at line 2"):
        files.load_yaml(tmp_path, "bad.yaml")


# --- the rollup's reading order (rollup.topological_order) is networkx's topological_sort ------------

@given(st.integers(0, 10), st.lists(st.tuples(st.one_of(st.integers(0, 12), st.tuples(st.just("table"), st.integers(0, 3))),
                                              st.one_of(st.integers(0, 12), st.tuples(st.just("table"), st.integers(0, 3)))),
                                    max_size=30))
@settings(max_examples=300, deadline=None)
def test_the_reading_order_is_networkx_topological_sort(n, edges):
    import networkx as nx

    from prism_lineage.governance.rollup import topological_order

    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    successors: dict = {i: {} for i in range(n)}
    for u, v in edges:
        graph.add_edge(u, v)
        successors.setdefault(u, {})
        successors.setdefault(v, {})
        successors[u][v] = None
    try:
        expected = list(nx.topological_sort(graph))
    except nx.NetworkXUnfeasible:
        expected = None  # a cycle
    assert topological_order(successors) == expected


def test_loading_leaves_no_cycle_for_the_collector(tmp_path):
    """A sync pauses the cyclic garbage collector (control/sync.py): a document's load must not
    leave a reference cycle (a closure calling itself did, holding the whole node tree)."""
    import gc

    (tmp_path / "d.yaml").write_text("a: {b: [1, 2, {c: d}]}\ne: &x [f]\ng: *x\n" * 1)
    enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        for _ in range(50):
            files.load_yaml(tmp_path, "d.yaml")
        assert gc.collect() < 10
    finally:
        if enabled:
            gc.enable()
