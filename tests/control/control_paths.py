"""The control plane's tests share the governance tests' helpers (and run their property tests
against the store's answers): imported first by each test module, it puts them on the path.
(Not a conftest.py: tests elsewhere import the top-level ``conftest`` by name.)"""

from __future__ import annotations

import sys
from pathlib import Path

GOVERNANCE_TESTS = Path(__file__).resolve().parent.parent / "governance"
if str(GOVERNANCE_TESTS) not in sys.path:
    sys.path.insert(0, str(GOVERNANCE_TESTS))
