"""The explorer's screenshots in docs/explorer/ (README.md and docs/explorer.md show them).

    python tests/browser/screenshots.py docs/explorer [shop dbt generated observed]

Syncs the example shop, the dbt fixture and a generated warehouse of 3,000 assets into a
temporary index, serves each with ``prism-lineage serve``, and photographs the pages in
headless chromium (the browser tests' harness).  ``observed``: the shop's dev environment after
``observe`` of examples/openlineage/shop_runs.py's events (docs/openlineage.md).  Naming sets
makes only those.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from browser_helpers import DBT, SHOP, Server, drawn, start_playwright, sync_into  # noqa: E402

VIEWPORT = {"width": 1500, "height": 940}


def explorer(page, url, asset, direction="both", depth=2):
    page.goto(f"{url}/explorer?" + urlencode({"asset": asset, "direction": direction, "depth": depth}))
    drawn(page)


def shop_pictures(browser, out: Path, scratch: Path) -> None:
    index = sync_into(SHOP, scratch / "shop-index")
    server = Server("--index", str(index), "--project", str(SHOP), "--as", "bob")
    try:
        page = browser.new_page(viewport=VIEWPORT)
        explorer(page, server.url, "analytics.orders")
        page.screenshot(path=str(out / "shop-explorer.png"))
        page.focus("#lineage-graph")
        page.keyboard.press("Enter")
        page.wait_for_selector("#impact-count")
        page.click("#show-list")
        # The column detail of analytics.orders -> marts.revenue_by_country: values, then a join.
        page.locator("#edge-list tr[data-mark=parsed]", has_text="marts.revenue_by_country").locator(
            ".columns-button").click()
        page.wait_for_selector("#edge-panel h2")
        page.click("#show-list")  # back to the graph, the panels under it
        page.screenshot(path=str(out / "shop-impact.png"), full_page=True)
        page.click("#show-list")
        page.screenshot(path=str(out / "shop-list.png"), full_page=True)
        page.goto(f"{server.url}/assets/analytics.orders")
        drawn(page)
        page.screenshot(path=str(out / "shop-record.png"), full_page=True)
        page.close()
    finally:
        server.stop()


def dbt_pictures(browser, out: Path, scratch: Path) -> None:
    index = sync_into(DBT, scratch / "dbt-index")
    server = Server("--index", str(index), "--project", str(DBT))
    try:
        page = browser.new_page(viewport=VIEWPORT)
        explorer(page, server.url, "main.orders", "both", 3)
        page.screenshot(path=str(out / "dbt-explorer.png"))
        page.close()
    finally:
        server.stop()


def generated_pictures(browser, out: Path, scratch: Path) -> None:
    sys.path.insert(0, str(HERE.parents[1]))
    from benchmarks.governance_bench import generate, write_native

    project = scratch / "warehouse"
    write_native(generate(3000, 7), project)
    index = sync_into(project, scratch / "warehouse-index")
    server = Server("--index", str(index), "--project", str(project))
    try:
        page = browser.new_page(viewport=VIEWPORT)
        explorer(page, server.url, "report.r00115", "upstream", 10)  # an answer cut at 100
        page.screenshot(path=str(out / "generated-100.png"))
        page.close()
    finally:
        server.stop()


def observed_pictures(browser, out: Path, scratch: Path) -> None:
    from browser_helpers import observed_shop

    index = observed_shop(scratch / "observed-index")
    server = Server("--index", str(index), "--project", str(SHOP), "--env", "dev", "--as", "alice")
    try:
        page = browser.new_page(viewport=VIEWPORT)
        # analytics.customer_revenue's SQL is kept in a file (not read): only the runs show what it reads.
        explorer(page, server.url, "analytics.customer_revenue", "both", 2)
        # The column detail a Spark run reported for an edge no SQL shows.
        page.locator('#lineage-graph g.edge[data-mark=observed][data-from-name="analytics.orders"][data-to-name="analytics.customer_revenue"]').click()
        page.wait_for_selector("#edge-panel h2")
        page.screenshot(path=str(out / "shop-observed.png"), full_page=True)
        page.close()
    finally:
        server.stop()


SETS = {"shop": shop_pictures, "dbt": dbt_pictures, "generated": generated_pictures, "observed": observed_pictures}


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/explorer")
    chosen = argv[1:] or list(SETS)
    unknown = set(chosen) - set(SETS)
    if unknown:
        print(f"unknown picture sets {sorted(unknown)} (known: {', '.join(SETS)})", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    playwright = start_playwright()
    from browser_helpers import launch

    browser = launch(playwright)
    try:
        with tempfile.TemporaryDirectory(prefix="prism-screens-") as scratch:
            for name in chosen:
                SETS[name](browser, out, Path(scratch))
    finally:
        browser.close()
        playwright.stop()
    for picture in sorted(out.glob("*.png")):
        print(picture)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
