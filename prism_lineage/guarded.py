"""Running deep work where it cannot take the process down.

Parsing, lowering and composing lineage recurse once per level of nesting of the input, and
much of that recursion is compiled code (sqlglot's parser and expression classes, the protobuf
runtime) whose frames live on the C stack.  A thread's C stack is small (8 MiB for the main
thread, often less for others); past it the process dies with SIGSEGV — no error, nothing
printed — whatever Python's recursion limit says.  So deep work never runs on the caller's
stack: ``run_guarded`` hands it to one worker thread made with a stack sized for it
(``STACK_BYTES``), and raises Python's recursion limit only while that thread works, to a
depth its stack holds with a wide margin (``RECURSION_LIMIT`` levels of at most
``_BYTES_PER_LEVEL`` each; sqlglot's compiled parser was measured at about 2.4 KiB per level).
Input deeper than that raises ``RecursionError`` in the worker, which becomes a clear
``NestingTooDeepError``: never a crash.

Before anything recurses, the SQL frontend also bounds nesting on the token stream
(``frontends/sql/parsing.py``), so the usual refusal names the statement, the line and the
column where the input nests too deeply; the limit here is the backstop for every other path
(Substrait plans, dataframe plans, flat expressions lowered into deep plans).

One worker serves the process (the GIL lets only one thread run Python at a time anyway);
callers on other threads wait their turn.  A call made from the worker itself runs inline.  A
child process made by ``fork`` starts its own worker when it first needs one.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from .errors import NestingTooDeepError

T = TypeVar("T")

# The worker's stack: address space reserved, not memory used (pages are touched only as deep
# as the work goes).  Smaller sizes are tried if the system refuses this one.
STACK_BYTES = 512 * 1024 * 1024
_FALLBACK_STACKS = (128 * 1024 * 1024, 32 * 1024 * 1024)
# C stack budgeted per level of Python recursion: about 3x the most measured.
_BYTES_PER_LEVEL = 8 * 1024
RECURSION_LIMIT = 20_000

DEEP_MESSAGE = (
    "the input nests more deeply than prism_lineage can follow (thousands of levels of subqueries, "
    "CTEs, expressions or plan relations inside each other): split it into several statements"
)


class _Job:
    __slots__ = ("function", "args", "kwargs", "done", "result", "error")

    def __init__(self, function, args, kwargs):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.done = threading.Event()
        self.result = None
        self.error: BaseException | None = None


class _Worker:
    """The deep-stack thread and its queue of jobs."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.limit = RECURSION_LIMIT
        self.failed = False  # no thread could be made: run inline, at the caller's limit

    def start(self) -> None:
        for size in (STACK_BYTES, *_FALLBACK_STACKS):
            try:
                previous = threading.stack_size(size)
            except (ValueError, RuntimeError):
                continue
            try:
                thread = threading.Thread(target=self._serve, name="prism-lineage-deep", daemon=True)
                thread.start()
            except RuntimeError:  # the system could not reserve that much stack
                continue
            finally:
                threading.stack_size(previous)
            self.thread = thread
            self.limit = min(RECURSION_LIMIT, size // _BYTES_PER_LEVEL)
            return
        self.failed = True

    def _serve(self) -> None:
        while True:
            job = self.jobs.get()
            previous = sys.getrecursionlimit()
            if previous < self.limit:
                sys.setrecursionlimit(self.limit)
            try:
                job.result = _run(job.function, job.args, job.kwargs)
            except BaseException as error:  # noqa: BLE001 - handed to the caller, raised there
                job.error = error
            finally:
                if sys.getrecursionlimit() == self.limit and previous < self.limit:
                    sys.setrecursionlimit(previous)
                job.done.set()
                job = None  # type: ignore[assignment] - keep no reference to a finished job


def _run(function, args, kwargs):
    try:
        return function(*args, **kwargs)
    except RecursionError:
        raise NestingTooDeepError(DEEP_MESSAGE) from None


_worker = _Worker()


def _after_fork() -> None:
    global _worker
    _worker = _Worker()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def run_guarded(function: Callable[..., T], *args, **kwargs) -> T:
    """``function(*args, **kwargs)`` on the deep-stack worker thread; its result, or the
    exception it raised (``RecursionError`` as ``NestingTooDeepError``)."""
    worker = _worker
    if worker.thread is not None and threading.current_thread() is worker.thread:
        return function(*args, **kwargs)
    if worker.thread is None and not worker.failed:
        with worker.lock:
            if worker.thread is None and not worker.failed:
                worker.start()
    if worker.failed:
        return _run(function, args, kwargs)
    job = _Job(function, args, kwargs)
    worker.jobs.put(job)
    job.done.wait()
    if job.error is not None:
        error, job.error = job.error, None
        raise error
    return job.result


def guarded(function: Callable[..., T]) -> Callable[..., T]:
    """Decorator: every call of ``function`` runs through ``run_guarded``."""
    import functools

    @functools.wraps(function)
    def call(*args, **kwargs):
        return run_guarded(function, *args, **kwargs)

    return call
