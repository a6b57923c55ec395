"""The TPC-H and TPC-DS workloads: queries and schema, found beside the repository.

Looked for, in order: ``$PRISM_WORKLOADS``, ``../shared/workloads`` (the team's shared data)
and ``tests/fixtures/workloads`` (a copy inside the repository).  Each workload is a folder
with ``q*.sql`` files and a ``schema.json`` mapping tables to ``{column: type}``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("tpch", "tpcds")


@dataclass(frozen=True)
class Workload:
    name: str
    schema: dict[str, dict[str, str]]
    queries: tuple[tuple[str, str], ...]  # (query name, SQL text), in file-name order
    folder: Path

    @property
    def label(self) -> str:
        return {"tpch": "TPC-H", "tpcds": "TPC-DS"}.get(self.name, self.name)


def candidate_folders() -> list[Path]:
    found = []
    if os.environ.get("PRISM_WORKLOADS"):
        found.append(Path(os.environ["PRISM_WORKLOADS"]))
    found += [ROOT.parent / "shared" / "workloads", ROOT / "tests" / "fixtures" / "workloads"]
    return found


def workloads_folder() -> Path | None:
    for folder in candidate_folders():
        if all((folder / name / "schema.json").is_file() for name in NAMES):
            return folder
    return None


def load(name: str, folder: Path | None = None) -> Workload:
    base = folder or workloads_folder()
    if base is None:
        raise FileNotFoundError(
            "no workloads found: looked in " + ", ".join(str(f) for f in candidate_folders())
            + " (set PRISM_WORKLOADS to a folder holding tpch/ and tpcds/)"
        )
    path = base / name
    schema = json.loads((path / "schema.json").read_text(encoding="utf-8"))
    queries = tuple((file.stem, file.read_text(encoding="utf-8")) for file in sorted(path.glob("q*.sql")))
    return Workload(name, schema, queries, path)
