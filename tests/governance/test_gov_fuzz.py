"""The CLI over corrupted and hostile project trees (issue 15, "Done when").

Hypothesis breaks a copy of the example project (native, or the dbt fixture) — links leading
out of it, to devices, to directories, in loops; FIFOs where files are read; files over the size
limit, nested without bound, not UTF-8, cut short, saying a key twice — and runs the commands
with option-shaped values.  Whatever it builds, no command may exit 70 (an internal error), hang
past a bound, or write a file anywhere but under ``--index``.
"""

from __future__ import annotations

import os
import shutil
import signal
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov_helpers import DBT, SHOP
from prism_lineage.cli import INTERNAL_ERROR, main

BOUND_SECONDS = 20  # a command over these small trees takes well under a second
MAX_BYTES = 50_000  # PRISM_LINEAGE_MAX_FILE_BYTES for the run: "huge" stays cheap to write

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer") or not hasattr(os, "mkfifo"),
                                reason="needs POSIX timers and FIFOs")

NATIVE_FILES = ("project.yaml", "access.yaml", "environments/prod.yaml", "environments/dev.yaml",
                "tables/analytics_orders.yaml", "tables/raw_orders.yaml", "views/daily_revenue.yaml",
                "pipelines/ingest.yaml")
DBT_FILES = ("dbt_project.yml", "profiles.yml", "target/manifest.json", "target/catalog.json")
DAMAGES = ("link_outside", "link_device", "link_directory", "link_dangling", "link_loop", "fifo", "huge", "deep",
           "deep_json", "not_utf8", "truncated", "duplicate_key", "unknown_key", "nul", "escape", "empty",
           "directory")
HOSTILE_VALUES = ("--output=VICTIM", "-oVICTIM", "../../VICTIM", "VICTIM", "-", "--", "\x1b[2J", "a\nb",
                  "analytics.orders", "orders", "impact")


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def damage(root: Path, relative: str, kind: str, outside: Path) -> None:
    """Breaks ``root/relative`` in the way ``kind`` says."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text(errors="replace") if path.is_file() else "x: 1\n"
    if path.is_symlink() or path.exists():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    if kind == "link_outside":
        path.symlink_to(outside / "secret.yaml")
    elif kind == "link_device":
        path.symlink_to("/dev/zero")
    elif kind == "link_directory":
        path.symlink_to(outside, target_is_directory=True)
    elif kind == "link_dangling":
        path.symlink_to(outside / "nothing-here")
    elif kind == "link_loop":
        path.symlink_to(path.name)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "huge":
        path.write_text("# " + "x" * (MAX_BYTES + 10) + "\n" + text)
    elif kind == "deep":
        path.write_text("a: " + "[" * 20_000 + "]" * 20_000 + "\n")
    elif kind == "deep_json":
        path.write_text('{"metadata": ' + "[" * 50_000 + "]" * 50_000 + "}")
    elif kind == "not_utf8":
        path.write_bytes(b"\xff\xfe" + text.encode()[:50])
    elif kind == "truncated":
        path.write_text(text[: max(1, len(text) // 2)])
    elif kind == "duplicate_key":
        path.write_text(text + "\n" + (text.splitlines() or ["x: 1"])[0] + "\n")
    elif kind == "unknown_key":
        path.write_text(text + "\nsurprise: true\n")
    elif kind == "nul":
        path.write_text(text.replace("a", "a\x00", 1))
    elif kind == "escape":
        path.write_text(text.replace("name: ", "name: \"\\e[2J", 1).replace("\n", "\"\n", 1) if "name: " in text
                        else text + "\nname: \"\\e]0;x\\a\"\n")
    elif kind == "empty":
        path.write_text("")
    elif kind == "directory":
        path.mkdir()


@st.composite
def hostile_runs(draw):
    dbt = draw(st.booleans())
    files = DBT_FILES if dbt else NATIVE_FILES
    damages = draw(st.lists(st.tuples(st.sampled_from(files), st.sampled_from(DAMAGES)), min_size=1, max_size=3,
                            unique_by=lambda d: d[0]))
    asset = draw(st.sampled_from(HOSTILE_VALUES))
    option_values = draw(st.fixed_dictionaries({
        "--as": st.sampled_from(("bob", "dave", "--output=VICTIM", "-x", "nobody", "\x1b[2J")),
        "--env": st.sampled_from(("prod", "../VICTIM", "--output=VICTIM", "-", "dev")),
        "--base-rev": st.sampled_from(("HEAD", "--output=VICTIM", "-oVICTIM", "HEAD:shop", "--", "nope")),
    }))
    used = draw(st.lists(st.sampled_from(sorted(option_values)), unique=True, max_size=2))
    command = draw(st.sampled_from(("explore", "impact", "choose", "review", "sync", "index-sync")))
    return dbt, damages, asset, {k: option_values[k] for k in used}, command


def snapshot(directory: Path, skip: Path) -> dict[str, tuple]:
    found = {}
    for current, directories, files in os.walk(directory, followlinks=False):
        if Path(current) == skip or skip in Path(current).parents:
            directories[:] = []
            continue
        for name in files + directories:
            path = Path(current) / name
            if path == skip:
                continue
            status = path.lstat()
            found[str(path)] = (status.st_mode, status.st_size, status.st_mtime_ns)
    return found


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=hostile_runs())
def test_fuzz_hostile_trees_never_crash_hang_or_write_outside_the_index(tmp_path_factory, monkeypatch, case):
    dbt, damages, asset, options, command = case
    work = tmp_path_factory.mktemp("fuzz")
    outside = work / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("namespace: leak\nname: secret\ncolumns: [{name: password}]\n")
    victim = work / "VICTIM"
    victim.write_text("keep")
    project = Path(shutil.copytree(DBT if dbt else SHOP, work / "project"))
    base = Path(shutil.copytree(project, work / "base"))
    for relative, kind in damages:
        damage(project, relative, kind, outside)
    index = work / "index"
    monkeypatch.chdir(work)  # a relative VICTIM path would land here
    monkeypatch.setenv("PRISM_LINEAGE_MAX_FILE_BYTES", str(MAX_BYTES))
    argv = {"explore": ["lineage", asset], "impact": ["lineage", "impact", asset], "choose": ["lineage"],
            "review": ["review", "--base", str(base)], "sync": ["sync", "--index", str(index)],
            "index-sync": ["lineage", asset, "--index", str(index), "--sync"]}[command]
    argv += ["--project", str(project)]
    for option, value in options.items():
        if option == "--base-rev" and command in ("review",):
            continue  # review takes --base here
        if option == "--base-rev" and command != "review":
            continue  # no git repository: covered by the option-shaped revision tests
        if command in ("sync",) and option == "--as":
            continue
        argv.append(f"{option}={value.replace('VICTIM', str(victim))}")
    before = snapshot(work, index)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, BOUND_SECONDS)
    try:
        with redirect_stdout(StringIO()), redirect_stderr(StringIO()) as err:
            code = main(argv)
    except Hang:
        pytest.fail(f"hung past {BOUND_SECONDS} s: {argv} over {damages}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert code != INTERNAL_ERROR, (argv, damages, err.getvalue())
    assert victim.read_text() == "keep"
    after = snapshot(work, index)
    assert after == before, (argv, damages, set(after) ^ set(before))
