"""What one statement may cost a sync (``ReadingBudget``) and how many workers read by
default — apart from the reading pass, so that a sync that reads nothing imports no reader."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class ReadingBudget:
    """What one statement may cost: ``timeout`` seconds of reading, ``max_bytes`` of SQL (UTF-8)."""

    timeout: float | None = None
    max_bytes: int | None = None

    def as_dict(self) -> dict:
        return {"timeout": self.timeout, "max_bytes": self.max_bytes}

    def at_least(self, other: dict | None) -> bool:
        """Whether this budget allows everything ``other`` (an earlier one) allowed."""
        if not other:
            return True
        for name, mine in (("timeout", self.timeout), ("max_bytes", self.max_bytes)):
            theirs = other.get(name)
            if theirs is None and mine is not None:
                return False
            if theirs is not None and mine is not None and mine < theirs:
                return False
        return True



def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
