"""The console script ends a sync's process without the interpreter's teardown
(``cli.end_without_teardown``): the output and the exit handlers first, then ``os._exit``.

A full sync ends holding what it worked out (a gigabyte at 100,000 assets); freeing it object by
object took 5-6 seconds after the answer was written.  What must not change: the exit code, every
byte written to stdout and stderr, and the exit handlers (logging, finalizers, temporary files).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from prism_lineage import cli

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


class _Ended(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


@pytest.fixture
def ending(monkeypatch):
    """``os._exit`` and the exit handlers recorded instead of run."""
    calls: list = []
    monkeypatch.setattr(cli, "_WITHOUT_TEARDOWN", False)

    def _end(code):
        calls.append(("_exit", code))
        raise _Ended(code)

    monkeypatch.setattr(cli, "_end", _end)  # not os._exit itself: the sync's store child uses it
    import atexit

    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: calls.append(("exit handlers",)))
    return calls


def test_a_sync_ends_after_its_output_and_exit_handlers_without_teardown(tmp_path, monkeypatch, ending, capsys):
    monkeypatch.setattr(sys, "argv", ["prism-lineage", "sync", "--project", str(SHOP), "--index",
                                      str(tmp_path / "index"), "--jobs", "1", "-o", "json"])
    with pytest.raises(_Ended) as ended:
        cli.console_main()
    assert ended.value.code == 0
    assert ending == [("exit handlers",), ("_exit", 0)]  # the handlers first, then the end
    summary = json.loads(capsys.readouterr().out)
    assert summary["epoch"] == 1 and summary["read"] > 0


def test_a_failed_sync_keeps_its_exit_code(tmp_path, monkeypatch, ending, capsys):
    monkeypatch.setattr(cli, "_WITHOUT_TEARDOWN", True)  # as after a sync in this process
    monkeypatch.setattr(sys, "argv", ["prism-lineage", "sync", "--project", str(tmp_path / "missing"), "--index",
                                      str(tmp_path / "index")])
    with pytest.raises(_Ended) as ended:
        cli.console_main()
    assert ended.value.code not in (0, cli.INTERNAL_ERROR)
    assert "prism-lineage: error:" in capsys.readouterr().err


def test_other_commands_end_as_usual(tmp_path, monkeypatch, ending, capsys):
    query = tmp_path / "q.sql"
    query.write_text("SELECT 1 AS one")
    monkeypatch.setattr(sys, "argv", ["prism-lineage", "explain", str(query)])
    with pytest.raises(SystemExit) as ended:
        cli.console_main()
    assert ended.value.code == 0
    assert ending == []
    assert "one" in capsys.readouterr().out


def test_the_sync_process_writes_everything_and_runs_the_exit_handlers(tmp_path):
    """End to end: a real process, its stdout a pipe (block-buffered), an exit handler of the host."""
    script = ("import atexit, sys\n"
              "atexit.register(lambda: print('exit handlers ran', file=sys.stderr))\n"
              "from prism_lineage.cli import console_main\n"
              "sys.argv = ['prism-lineage'] + sys.argv[1:]\n"
              "console_main()\n")
    done = subprocess.run([sys.executable, "-c", script, "sync", "--project", str(SHOP), "--index",
                           str(tmp_path / "index"), "--jobs", "1", "-o", "json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["epoch"] == 1
    assert done.stderr.rstrip().endswith("exit handlers ran")
    again = subprocess.run([sys.executable, "-m", "prism_lineage", "sync", "--project", str(SHOP), "--index",
                            str(tmp_path / "index"), "--jobs", "1"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stderr.startswith("prism-lineage: synced") and " as epoch 2:" in again.stderr
