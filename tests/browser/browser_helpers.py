"""Browser tests' harness: Debian's chromium driven by Playwright, and ``prism-lineage serve``
run as a real process on a free port of this machine.

Playwright's own browser download is not used: the tests launch the system's chromium
(``/usr/bin/chromium``, or ``$PRISM_CHROMIUM``), which ``.ci/run`` installs.  Where no browser
can be had the tests skip, saying why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop"
DBT = ROOT / "tests" / "fixtures" / "dbt_project"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
SECRETS = {"alice": "alice-secret-1", "bob": "bob-secret-22", "carol": "carol-secret-3", "dave": "dave-secret-44",
           "bob-ci": "bob-ci-token-5", "bob-deploy": "bob-deploy-token-6"}


def chromium_path() -> str | None:
    found = os.environ.get("PRISM_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and Path("/usr/bin/chromium").exists():
        found = "/usr/bin/chromium"
    return found


def launch(playwright):
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on this machine (apt-get install chromium; .ci/run installs it as root)")
    return playwright.chromium.launch(executable_path=executable, args=FLAGS, headless=True)


def start_playwright():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    return sync_playwright().start()


class Server:
    """``prism-lineage serve`` in a process of its own; ``url`` is where it listens."""

    def __init__(self, *args: str):
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from prism_lineage.cli import main; sys.exit(main())", "serve",
             "--port", "0", *args],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        line = ""
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            found = re.search(r"at (http://\S+)/explorer", line)
            if found:
                self.url = found.group(1)
                return
            if not line and self.process.poll() is not None:
                break
        self.stop()
        raise RuntimeError(f"prism-lineage serve did not start: {line.strip()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextmanager
def served(server_args: Callable[[], Sequence[str]]) -> Iterator[tuple[object, str]]:
    """Playwright driving the system's chromium, and ``prism-lineage serve`` with the arguments
    ``server_args()`` returns: yields ``(browser, url of the server)``.  On the way out, whatever
    happened, the server, the browser and Playwright are stopped, in that order.  Without the
    playwright package or a chromium the test skips — before any work: ``server_args`` (which
    may sync an index) is called only once the browser runs."""
    playwright = start_playwright()
    browser = server = None
    try:
        browser = launch(playwright)
        server = Server(*server_args())
        yield browser, server.url
    finally:
        if server is not None:
            server.stop()
        if browser is not None:
            browser.close()
        playwright.stop()


def sync_into(project: Path, index: Path, environment: str | None = None) -> Path:
    from prism_lineage.control.sync import sync

    sync(project, index, environment)
    return index


def observed_shop(index: Path) -> Path:
    """The shop's dev environment synced into ``index``, then the runs of
    examples/openlineage/shop_runs.py observed (timed in the last hours)."""
    import importlib.util
    from datetime import datetime, timedelta, timezone

    from openlineage.client.serde import Serde

    from prism_lineage.control.paths import environment_root
    from prism_lineage.governance.loading import load_project
    from prism_lineage.governance.rollup import asset_id, environment_of
    from prism_lineage.openlineage import Ingestor

    sync_into(SHOP, index, "dev")
    spec = importlib.util.spec_from_file_location("shop_runs", ROOT / "examples" / "openlineage" / "shop_runs.py")
    shop_runs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shop_runs)
    project, _ = load_project(str(SHOP))
    env = environment_of(project, "dev")
    assets = {d.full_name: asset_id(project.name, env.name, d.full_name) for d in (*env.tables, *env.views)}
    now = datetime.now(timezone.utc) - timedelta(minutes=1)
    with Ingestor(environment_root(index, project.name, env.name), assets) as ingestor:
        summary = ingestor.events([Serde.to_json(e) for e in shop_runs.events(now)])
    assert not summary.rejected and summary.edges == 5, summary.to_dict()
    return index


def write_secrets(path: Path) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(SECRETS), encoding="utf-8")
    return path


def drawn(page, timeout: float = 30_000) -> None:
    """Waits until the page has drawn its answer (or said why not)."""
    page.wait_for_function("() => ['drawn', 'refused', 'not-computed', 'choose'].includes(document.body.dataset.state)",
                           timeout=timeout)


def login(page, url: str, name: str) -> None:
    page.goto(f"{url}/login")
    page.fill("#login-name", name)
    page.fill("#login-secret", SECRETS[name])
    page.click("form.login button[type=submit]")
    page.wait_for_load_state()
