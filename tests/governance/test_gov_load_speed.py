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


# --- session 7: the listing, the identifier check, the rollup's sort, links and collector ----------


def _listed_with_paths(root: Path, directory: str, pattern: str = "*.y*ml") -> list[str]:
    """``files.declaration_files`` as it was: a ``Path`` per file, made relative to the root."""
    import fnmatch
    import os

    top = root / directory
    if not top.is_dir():
        return []
    files.inside(root, directory)
    found = []
    for current, directories, names in os.walk(top, followlinks=False):
        directories.sort()
        for name in names:
            if fnmatch.fnmatchcase(name, pattern):
                found.append((Path(current) / name).relative_to(root).as_posix())
    return sorted(found)


def test_declaration_files_lists_what_paths_listed(tmp_path, monkeypatch):
    import os

    for relative in ["p/tables/a.yaml", "p/tables/b.yml", "p/tables/x/y/c.yaml", "p/tables/x/z.YAML",
                     "p/tables/ü é.yaml", "p/tables/.h.yaml", "p/tables/q.yamlx", "p/tables/[a].yaml",
                     "p/views/v.yaml", "p/out/o.yaml"]:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("a: 1\n")
    (tmp_path / "p/tables/linked").symlink_to(tmp_path / "p/out")  # a directory link: not followed
    (tmp_path / "p/tables/link.yaml").symlink_to(tmp_path / "p/out/o.yaml")  # a file link: listed
    os.close(os.open(os.fsencode(tmp_path / "p/tables") + b"/\xff.yaml", os.O_CREAT | os.O_WRONLY))
    monkeypatch.chdir(tmp_path)
    for root in [Path("p"), Path("./p/"), tmp_path / "p", Path("p/../p")]:
        for directory in ["tables", "views", "tables/x", "./tables", "tables/", "none"]:
            for pattern in ["*.y*ml", "*.YAML", "[[]a].yaml", "*"]:
                assert files.declaration_files(root, directory, pattern) == \
                    _listed_with_paths(root, directory, pattern), (root, directory, pattern)
    assert files.declaration_files(Path("p"), "tables")[:3] == ["tables/.h.yaml", "tables/[a].yaml", "tables/a.yaml"]


def _identifier_problem_per_character(value: str):
    import unicodedata

    from prism_lineage.terminal import printable

    if not value:
        return "must not be empty"
    for character in value:
        if unicodedata.category(character) == "Cc":
            return f"must not hold control characters (it holds {printable(character)})"
    return None


@given(st.text(st.characters(codec=None), max_size=12) | st.text("ab\x00\x1b\x7f\x85\u2028\u200b é", max_size=6))
@settings(max_examples=300, deadline=None)
def test_identifier_problem_is_the_per_character_check(value):
    from prism_lineage.governance.names import identifier_problem

    assert identifier_problem(value) == _identifier_problem_per_character(value)


def test_no_control_character_is_printable():
    """``identifier_problem``'s first test: a printable string holds no character of category Cc."""
    import sys
    import unicodedata

    assert not [c for c in map(chr, range(sys.maxunicode + 1)) if unicodedata.category(c) == "Cc" and c.isprintable()]


@given(st.lists(st.sampled_from("abcdef"), unique=True, max_size=5),
       st.lists(st.tuples(st.sampled_from("abcdefg"), st.integers(0, 3)), max_size=7), st.booleans())
@settings(max_examples=300, deadline=None)
def test_reads_with_links_is_columns_from_per_read(reads, columns, aligned):
    from prism_lineage.governance.sql_reading import ColumnLink, StatementRead

    def links(name, n):
        return tuple(ColumnLink(f"{name}{i}", "x", "identity", "copy", "exact") for i in range(n))

    if aligned:  # as SqlReader.read makes it: the reads, in order, each with its links
        columns = [(name, n) for name, (_, n) in zip(reads, columns + [("", 0)] * len(reads))]
    read = StatementRead("k", None, tuple(reads), tuple((name, links(name, n)) for name, n in columns))
    found = read.reads_with_links()
    expected = tuple((name, read.columns_from(name)) for name in read.reads)
    assert found == expected
    assert all(a[1] is b[1] for a, b in zip(found, expected))  # the very tuples the read holds


@given(st.lists(st.sampled_from(["s.b", "s.a", "t.a", "s.a_", "S.a", "ü.x"]), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from(["declared", "parsed", "observed"]),
                          st.sampled_from(["view", "pipeline"]), st.sampled_from(["f", "e", "views/x.yaml"])),
                max_size=30))
@settings(max_examples=300, deadline=None)
def test_the_edge_sort_key_orders_as_edge_order(names, rows):
    """Sorting by name ranks gives ``_edge_order``'s order, ties in the same (stable) order — also
    where two assets share a full name."""
    from prism_lineage.governance.rollup import Asset, LineageEdge, _edge_order, _edge_sort_key
    from prism_lineage.governance.statuses import Mark, Via

    assets = {f"a{i}": Asset(f"a{i}", name, *name.split("."), "table", None, None, False, "f")
              for i, name in enumerate(names)}
    edges = [LineageEdge(f"a{s % len(names)}", f"a{t % len(names)}", Mark(m), Via(v), f) for s, t, m, v, f in rows]
    by_names = sorted(edges, key=lambda e: _edge_order(assets, e))
    by_ranks = sorted(edges, key=_edge_sort_key(assets))
    assert all(a is b for a, b in zip(by_names, by_ranks)) and len(by_names) == len(by_ranks)


def test_the_rollup_collects_only_while_it_reads_sql(monkeypatch):
    """The rollup turns the cyclic collector off while it builds (``rollup._collector_off_but_for_
    reads``) and on while it reads SQL in process (sqlglot's trees are cycles), then as it was."""
    import gc

    from prism_lineage.governance import rollup
    from prism_lineage.governance.loading import load_project
    from prism_lineage.governance.sql_reading import SqlReader

    project, access = load_project(ROOT / "examples" / "shop")
    seen: dict[str, list[bool]] = {"read": [], "build": []}
    read, compiled = SqlReader.read, rollup._Builder._compiled_assets

    def reading(self, *args):
        seen["read"].append(gc.isenabled())
        return read(self, *args)

    def compiling(self):
        seen["build"].append(gc.isenabled())
        return compiled(self)

    monkeypatch.setattr(SqlReader, "read", reading)
    monkeypatch.setattr(rollup._Builder, "_compiled_assets", compiling)
    enabled = gc.isenabled()
    try:
        for on in (True, False):
            (gc.enable if on else gc.disable)()
            seen["read"].clear(), seen["build"].clear()
            from prism_lineage.governance.access import policy_scopes

            lineage = rollup.sync(project, "prod", scopes=policy_scopes(access, "prod"))
            assert lineage.scoped and seen["read"] and seen["build"]
            assert set(seen["read"]) == {on}  # a caller that turned it off keeps it off
            assert set(seen["build"]) == {False}
            assert gc.isenabled() is on
    finally:
        (gc.enable if enabled else gc.disable)()


def test_a_caller_that_keeps_the_collector_off_collects_while_the_rollup_reads(monkeypatch):
    import gc

    from prism_lineage.governance import rollup
    from prism_lineage.governance.loading import load_project
    from prism_lineage.governance.sql_reading import SqlReader

    project, _ = load_project(ROOT / "examples" / "shop")
    seen: list[bool] = []
    read = SqlReader.read

    def reading(self, *args):
        seen.append(gc.isenabled())
        return read(self, *args)

    monkeypatch.setattr(SqlReader, "read", reading)
    enabled = gc.isenabled()
    gc.disable()
    try:
        with rollup.collecting_while_reading():
            rollup.sync(project, "prod")
        assert seen and set(seen) == {True}
        assert not gc.isenabled()
    finally:
        (gc.enable if enabled else gc.disable)()


@pytest.mark.parametrize(("text", "refused"), [
    ("a: " + "[" * 199 + "]" * 199 + "\n", False),  # 200 levels: the bound
    ("a: " + "[" * 200 + "]" * 200 + "\n", True),
    ("- " + "{k: " * 200 + "v" + "}" * 200 + "\n", True),
    # A part met again through an alias stands deeper there than where it was built.
    ("x: &d " + "[" * 150 + "]" * 150 + "\ny: " + "[" * 60 + "*d" + "]" * 60 + "\n", True),
    ("x: &d " + "[" * 100 + "]" * 100 + "\ny: " + "[" * 60 + "*d" + "]" * 60 + "\n", False),
])
def test_the_nesting_bound_holds_on_the_fast_path_and_through_aliases(tmp_path, text, refused):
    """``load_yaml`` refuses a document nesting deeper than ``MAX_NESTING`` whichever way it was
    built: the fast path checks depth as it builds, and walks the document only when an alias
    re-used a part of it."""
    (tmp_path / "d.yaml").write_text(text)
    if refused:
        with pytest.raises(ProjectError, match="nests more deeply than 200 levels"):
            files.load_yaml(tmp_path, "d.yaml")
    else:
        assert files.load_yaml(tmp_path, "d.yaml") == yaml.load(text, Loader=files._Loader)  # noqa: S506
