"""Shared test configuration: the ``--update-goldens`` flag and paths to shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# CI must be deterministic: a rare example found by chance must not block a landing. `.ci/run`
# selects this profile; local runs keep hypothesis' random exploration (the "dev" default).  No
# deadline either: an example that took longer than 200 ms on a loaded machine (seen on the
# OpenLineage round trip, 417 ms once, 11 ms on the rerun) is a fact about the machine, not the
# code — speed is measured by benchmarks/, never by a timed test.
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite the expected answers of golden files (review the diff before committing)",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))
