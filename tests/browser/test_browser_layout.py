"""The graph's layout runs in a web worker (ELK's elk-worker.min.js): the page's own thread is
never blocked by it; and where the worker cannot run, the page says so and shows the list."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from browser_helpers import SHOP, drawn, served, sync_into

ADDRESS = {"asset": "analytics.orders", "direction": "both", "depth": 2}


@pytest.fixture(scope="module", name="served")
def served_shop(tmp_path_factory):
    def arguments():
        index = sync_into(SHOP, tmp_path_factory.mktemp("layout") / "index")
        return "--index", str(index), "--project", str(SHOP), "--as", "alice"

    with served(arguments) as (browser, url):
        yield browser, url


def test_the_layout_runs_in_a_worker(served):
    browser, url = served
    page = browser.new_page()
    page.goto(f"{url}/explorer?" + urlencode(ADDRESS))
    drawn(page)
    assert page.evaluate("document.body.dataset.state") == "drawn"
    assert [w.url for w in page.workers] == [f"{url}/static/vendor/elkjs/elk-worker.min.js"]
    # The page itself never loaded the layout code.
    assert page.evaluate("typeof ELK") == "function"
    assert not page.evaluate("performance.getEntriesByType('resource').some(r => r.name.includes('elk.bundled'))")
    assert page.locator("#lineage-graph g.node").count() == 8
    page.close()


def test_a_worker_that_cannot_start_is_said_and_the_list_shown(served):
    browser, url = served
    context = browser.new_context()
    context.route("**/elk-worker.min.js", lambda route: route.fulfill(status=404, body="gone"))
    page = context.new_page()
    page.goto(f"{url}/explorer?" + urlencode(ADDRESS))
    page.wait_for_function("() => document.body.dataset.state === 'drawn-as-list'", timeout=30_000)
    assert "The graph could not be laid out here" in page.inner_text("#layout-failed")
    assert page.is_visible("#edge-list") and page.locator("#edge-list tbody tr[data-mark]").count() > 0
    context.close()
