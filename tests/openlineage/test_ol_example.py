"""docs/openlineage.md "In the explorer": examples/openlineage/shop_runs.py's events, observed into
the shop's dev environment, give the summary the page shows and the observed edges it describes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from prism_lineage.cli import main

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop"


def test_the_example_runs_as_shown(tmp_path: Path, capsys) -> None:
    runs = tmp_path / "shop-runs.jsonl"
    made = subprocess.run([sys.executable, str(ROOT / "examples" / "openlineage" / "shop_runs.py")],
                          capture_output=True, text=True, check=True)
    runs.write_text(made.stdout)
    index = tmp_path / "shop-index"
    assert main(["sync", "--project", str(SHOP), "--env", "dev", "--index", str(index)]) == 0
    capsys.readouterr()
    assert main(["observe", str(runs), "--index", str(index), "--project", str(SHOP), "--env", "dev"]) == 0
    shown = "observed into shop/dev: 3 lines, 3 accepted, 0 rejected; 5 observed edges recorded\n"
    assert capsys.readouterr().out == shown
    assert shown.strip() in (ROOT / "docs" / "openlineage.md").read_text()
    assert main(["lineage", "analytics.customer_revenue", "--project", str(SHOP), "--env", "dev", "--index",
                 str(index), "--depth", "2", "-o", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    marks = {}
    for edge in answer["edges"]:
        marks.setdefault((edge["from_name"], edge["to_name"]), set()).add(edge["mark"])
    assert marks[("staging.orders", "analytics.orders")] == {"declared", "parsed", "observed"}
    assert marks[("analytics.orders", "analytics.customer_revenue")] == {"observed"}
    assert marks[("raw.customers", "analytics.customer_revenue")] == {"observed"}
    assert "observed" in marks[("analytics.customer_revenue", "analytics.customer_scores")]
