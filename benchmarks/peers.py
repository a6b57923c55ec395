"""Where each tool runs: in this process when it imports here, else in its own virtual
environment through ``worker.py``, else it is reported as not installed."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .workloads import ROOT, Workload

WORKER = Path(__file__).resolve().parent / "worker.py"
WORKER_TIMEOUT_S = 3600


def venvs_folder() -> Path:
    """``$PRISM_BENCH_VENVS``, else ``venvs`` beside the repository (``../venvs``)."""
    return Path(os.environ.get("PRISM_BENCH_VENVS") or ROOT.parent / "venvs")


@dataclass(frozen=True)
class Placement:
    adapter: ModuleType
    where: str  # "in-process", "venv" or "not installed"
    python: Path | None = None
    version: str | None = None


def place(adapter: ModuleType) -> Placement:
    if _importable(adapter.MODULE):
        return Placement(adapter, "in-process", None, _version(adapter.DISTRIBUTION))
    if adapter.VENV:
        python = venvs_folder() / adapter.VENV / "bin" / "python"
        if python.is_file():
            return Placement(adapter, "venv", python)
    return Placement(adapter, "not installed")


def run_in_venv(placement: Placement, measures: list[str], workloads: list[Workload], *, repeat: int,
                budget: float, dialect=None) -> dict:
    """Every measure of one tool on every workload, timed inside the tool's environment."""
    job = {
        "adapter": placement.adapter.__name__.rpartition(".")[2],
        "measures": measures,
        "repeat": repeat,
        "budget": budget,
        "workloads": [
            {"name": w.name, "schema": w.schema, "dialect": dialect, "queries": [list(q) for q in w.queries]}
            for w in workloads
        ],
    }
    done = subprocess.run([str(placement.python), str(WORKER)], input=json.dumps(job), capture_output=True,
                          text=True, timeout=WORKER_TIMEOUT_S, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the {placement.adapter.TOOL} worker failed (exit {done.returncode}): {last}")
    return json.loads(done.stdout)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def python_version() -> str:
    return sys.version.split()[0]
