"""Answers from the current store are byte-identical to the in-memory ones: every credential,
every asset, direction and depth of the example projects, and every visibility property test of
tests/governance run again with the store answering (each call compared)."""

from __future__ import annotations

import control_paths  # noqa: F401 - the governance tests' helpers on the path

import shutil
import subprocess
import sys

import pytest

import test_gov_explorer
import test_gov_impact
import test_gov_properties
import test_gov_visibility
from gov_helpers import DBT, DBT2, SHOP
from store_helpers import StoreBacked

from prism_lineage.control import answers as light
from prism_lineage.control import reading
from prism_lineage.control.paths import environment_root
from prism_lineage.control.reading import StoreReader
from prism_lineage.control.sync import sync as control_sync
from prism_lineage.control.viewers import StoredViewer, compile_viewer
from prism_lineage.governance import answers as models
from prism_lineage.governance import explorer, impact
from prism_lineage.governance.access import Grant, Viewer, viewer_for
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.text import render_explorer, render_impact
from prism_lineage.index import EpochIndex


def test_light_answers_have_the_models_fields_in_order():
    for cls in light.LIGHT_ANSWERS:
        model = getattr(models, cls.MODEL)
        expected = [(name, field.alias or name) for name, field in model.model_fields.items()]
        assert list(cls.FIELDS) == expected, cls.MODEL


def test_the_read_path_keeps_the_explorers_rules():
    assert (reading.DEFAULT_DEPTH, reading.MIN_DEPTH, reading.MAX_DEPTH, reading.CUT_AT) == (
        explorer.DEFAULT_DEPTH, explorer.MIN_DEPTH, explorer.MAX_DEPTH, explorer.CUT_AT)
    assert (reading.KIND_ORDER, reading.AT_LEAST_NOTE) == (impact.KIND_ORDER, impact.AT_LEAST_NOTE)
    from prism_lineage.cli import lineage as cli_lineage

    assert cli_lineage.DEFAULT_DEPTH == explorer.DEFAULT_DEPTH


def _names(lineage):
    names = set(lineage.by_name) | {a.name for a in lineage.assets.values()}
    names |= {alias for a in lineage.assets.values() for alias in a.aliases}
    return sorted(names) + ["nothing.here", "sandbox.experiments", ""]


@pytest.mark.parametrize("root,environment", [(SHOP, "prod"), (SHOP, "dev"), (DBT, None), (DBT2, None)])
def test_every_answer_of_the_examples_from_the_store(tmp_path, root, environment):
    project, access = load_project(root)
    summary = control_sync(root, tmp_path, environment)
    store_root = environment_root(tmp_path, project.name, summary.environment)
    lineage = summary.lineage  # what the sync computed
    credentials = [None, *access.members, *access.tokens, "mallory"]
    compared = 0
    with StoreReader(store_root) as reader:
        for credential in credentials:
            try:
                viewer = viewer_for(access, credential)
            except Exception as error:  # noqa: BLE001
                with pytest.raises(type(error), match=str(error)):
                    reader.viewer(credential)
                continue
            stored = reader.viewer(credential)
            for name in _names(lineage):
                for direction in ("upstream", "downstream", "both"):
                    for depth in (1, 2, 10):
                        compared += _same(lambda: explorer.explore(lineage, viewer, name, direction, depth),
                                          lambda: reader.explore(stored, name, direction, depth), render_explorer)
                compared += _same(lambda: impact.impact(lineage, viewer, name), lambda: reader.impact(stored, name),
                                  render_impact)
    assert compared > 100


def _same(direct, from_store, render) -> int:
    try:
        expected = direct()
    except Exception as error:  # noqa: BLE001
        with pytest.raises(type(error)) as refused:
            from_store()
        assert str(refused.value) == str(error)
        return 1
    answer = from_store()
    assert answer.to_json() == expected.to_json()
    assert render(answer) == render(expected)
    assert answer.to_model() == expected
    return 1


# --- the governance property and visibility tests, answered by the store ----------------------

@pytest.fixture
def store_backed(monkeypatch, tmp_path):
    backed = StoreBacked(tmp_path)
    for module in (test_gov_properties, test_gov_visibility, test_gov_explorer, test_gov_impact):
        for name, function in (("explore", backed.explore), ("impact", backed.impact)):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, function)
    yield backed
    backed.close()


def _asking(*modules):
    """The tests of ``modules`` that ask explore or impact for an answer."""
    import inspect

    found = []
    for module in modules:
        for name in dir(module):
            test = getattr(module, name)
            if name.startswith("test_") and callable(test):
                source = inspect.getsource(getattr(test, "hypothesis", None) and test.hypothesis.inner_test or test)
                if "explore(" in source or "impact(" in source or "answers(" in source:
                    found.append(test)
    return found


PROPERTY_TESTS = _asking(test_gov_properties)
VISIBILITY_TESTS = _asking(test_gov_visibility)
EXPLORER_TESTS = _asking(test_gov_explorer, test_gov_impact)


@pytest.mark.parametrize("test", PROPERTY_TESTS + VISIBILITY_TESTS + EXPLORER_TESTS, ids=lambda t: t.__name__)
def test_governance_tests_hold_for_store_answers(store_backed, test, tmp_path_factory, request):
    import inspect

    parameters = inspect.signature(test).parameters
    cases = [{}]
    for mark in getattr(test, "pytestmark", ()):
        if mark.name == "parametrize":
            names = [n.strip() for n in mark.args[0].split(",")] if isinstance(mark.args[0], str) else mark.args[0]
            values = [v if len(names) > 1 else (v,) for v in mark.args[1]]
            cases = [{**case, **dict(zip(names, v))} for case in cases for v in values]
    for case in cases:
        arguments = dict(case)
        for name in parameters:
            if name in arguments or name in ("spec", "data"):
                continue  # given by parametrize, or drawn by hypothesis
            if name == "tmp_path":
                arguments[name] = tmp_path_factory.mktemp("t")
            else:
                arguments[name] = request.getfixturevalue(name)
        test(**arguments)
    assert store_backed.calls > 0, "the test asked nothing of explore or impact"


# --- viewers compiled at sync time -------------------------------------------------------------

def test_a_compiled_viewer_sees_exactly_what_the_viewer_sees():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    pattern = st.sampled_from(["*", "a.*", "b.*", "a.x?", "[ab].x", "[!a].*", "*.y", "a.x", "**", "c.[]"])
    environments = st.none() | st.frozensets(st.sampled_from(["prod", "dev"]))
    grant = st.builds(Grant, st.lists(pattern, max_size=3).map(tuple), environments)
    viewer = st.builds(Viewer, st.just("v"), st.frozensets(st.sampled_from(["lineage.read", "x"])),
                       st.lists(grant, max_size=3).map(tuple), st.none() | grant, st.booleans())
    names = st.text(alphabet="abcxy.*?[]!", min_size=1, max_size=5)

    @settings(max_examples=200, deadline=None)
    @given(viewer, st.sampled_from(["prod", "dev"]), st.lists(names, max_size=10))
    def check(v, environment, full_names):
        stored = StoredViewer(compile_viewer(v, environment))
        for name in full_names:
            assert stored.sees(name) == v.sees(environment, name)
        assert stored.may("lineage.read") == v.may("lineage.read")

    check()


# --- the read path's imports --------------------------------------------------------------------

def test_answering_from_the_store_imports_no_engine(tmp_path):
    control_sync(SHOP, tmp_path, "prod")
    code = (
        "import sys, io, contextlib\n"
        "from prism_lineage.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['lineage', 'impact', 'raw.orders', '--project', {str(SHOP)!r}, '--index', "
        f"{str(tmp_path)!r}, '-o', 'json', '--env', 'prod']) == 0\n"
        f"    assert main(['lineage', 'raw.orders', '--project', {str(SHOP)!r}, '--index', {str(tmp_path)!r}, "
        "'--env', 'prod', '--depth', '10']) == 0\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('sqlglot', 'pydantic', 'duckdb', 'pyarrow', 'networkx', 'yaml', 'substrait', 'google', "
        "'logging', 'typing', '_hashlib'))\n"
        "print(heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_help_imports_no_command(tmp_path):
    code = ("import sys\nfrom prism_lineage.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
            "    pass\nprint(sorted(m for m in sys.modules if m.startswith('prism_lineage.cli.') or "
            "m.split('.')[0] in ('sqlglot', 'pydantic', 'duckdb', 'pyarrow')))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_the_help_lines_are_the_commands_own():
    import argparse

    from prism_lineage import cli

    for name, (module_name, help_text) in cli.COMMANDS.items():
        parser = cli.build_parser(name)
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        line = next(c for c in action._choices_actions if c.dest == name)
        assert line.help == help_text, name
        assert action.choices[name].get_default("run") is not None, f"{name} registers no command"


def test_shutil_is_here():  # keeps the import used on platforms without git
    assert shutil.which("python3") or True
