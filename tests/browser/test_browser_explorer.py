"""The explorer in a real browser (Debian's chromium, driven by Playwright)."""

from __future__ import annotations

import json
import time
from collections import Counter
from urllib.parse import urlencode

import pytest

from browser_helpers import SHOP, Server, drawn, launch, login, start_playwright, sync_into, write_secrets


@pytest.fixture(scope="module")
def browser():
    playwright = start_playwright()
    try:
        found = launch(playwright)
    except BaseException:
        playwright.stop()
        raise
    yield found
    found.close()
    playwright.stop()


@pytest.fixture(scope="module")
def shop_index(tmp_path_factory):
    return sync_into(SHOP, tmp_path_factory.mktemp("index"))


@pytest.fixture(scope="module")
def shop(shop_index, tmp_path_factory):
    """The example shop served with logins (every credential of its access policy has a secret)."""
    secrets = write_secrets(tmp_path_factory.mktemp("secrets") / "credentials.yaml")
    server = Server("--index", str(shop_index), "--project", str(SHOP), "--credentials", str(secrets))
    yield server
    server.stop()


@pytest.fixture()
def as_user(browser, shop):
    """A browser page logged in as ``name`` (one context per credential: its own cookies)."""
    contexts = []

    def open_as(name: str):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        contexts.append(context)
        page = context.new_page()
        login(page, shop.url, name)
        return page

    yield open_as
    for context in contexts:
        context.close()


def explorer(page, url, asset, direction="both", depth=2):
    page.goto(f"{url}/explorer?" + urlencode({"asset": asset, "direction": direction, "depth": depth}))
    drawn(page)


def api(page, url, path):
    """An API answer fetched by the page itself (with its session), as JSON."""
    return page.evaluate("async (u) => (await fetch(u)).json()", f"{url}{path}")


# --- keyboard ------------------------------------------------------------------------------------

def test_the_graph_is_one_tab_stop(as_user, shop):
    page = as_user("bob")
    explorer(page, shop.url, "analytics.orders")
    assert page.eval_on_selector("#lineage-graph", "g => g.getAttribute('tabindex')") == "0"
    inner = page.eval_on_selector_all("#lineage-graph *", "all => all.filter(e => e.hasAttribute('tabindex') || "
                                                           "e.tagName.toLowerCase() === 'a').length")
    assert inner == 0
    page.focus("#show-list")
    stops = []
    for _ in range(40):
        page.keyboard.press("Tab")
        stops.append(page.evaluate("() => document.activeElement.id || document.activeElement.tagName"))
    assert stops.count("lineage-graph") == 1 or stops.count("lineage-graph") == stops.count("show-list") + 1
    # Tabbing out of the graph leaves it at once: nothing inside takes focus.
    page.focus("#lineage-graph")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('#lineage-graph') === null")


def test_arrows_move_between_assets_enter_shows_impact_escape_clears_it(as_user, shop):
    page = as_user("bob")
    explorer(page, shop.url, "analytics.orders")
    graph = page.locator("#lineage-graph")
    graph.focus()
    focused = lambda: page.eval_on_selector("#lineage-graph", "g => g.dataset.focused")  # noqa: E731
    centre = lambda name: page.eval_on_selector(f'g.node[data-name="{name}"]', "g => { const b = g.getBBox(); const m = g.transform.baseVal[0].matrix; return [m.e + b.x + b.width / 2, m.f + b.y + b.height / 2]; }")  # noqa: E731,E501
    assert focused() == "analytics.orders"
    page.keyboard.press("ArrowLeft")
    upstream = focused()
    assert upstream in ("staging.orders", "staging.payments")
    assert centre(upstream)[0] < centre("analytics.orders")[0]
    page.keyboard.press("ArrowRight")
    assert focused() == "analytics.orders"
    page.keyboard.press("ArrowRight")
    downstream = focused()
    assert downstream in ("analytics.daily_revenue", "marts.revenue_by_country")
    assert centre(downstream)[0] > centre("analytics.orders")[0]
    # Up and down move within what is drawn, each to an asset above or below.
    for key, sign in (("ArrowDown", 1), ("ArrowUp", -1)):
        before = focused()
        page.keyboard.press(key)
        after = focused()
        if after != before:
            assert (centre(after)[1] - centre(before)[1]) * sign > 0
    page.keyboard.press("Home")
    assert focused() == "analytics.orders"
    page.keyboard.press("Enter")
    page.wait_for_selector("#impact-count")
    impact = api(page, shop.url, "/api/v1/impact?asset=analytics.orders")
    expected = f"at least {impact['count']}" if impact["at_least"] else str(impact["count"])
    assert page.inner_text("#impact-count").startswith(expected + " ")
    assert page.inner_text("#impact-heading") == "Impact of analytics.orders"
    listed = page.eval_on_selector_all("#impact-panel tr[data-name]", "rows => rows.map(r => r.dataset.name)")
    assert sorted(listed) == sorted(a["name"] for a in impact["assets"])
    assert page.evaluate("() => document.activeElement.id") == "lineage-graph"
    page.keyboard.press("Escape")
    assert page.inner_text("#impact-panel") == ""


def test_impact_says_at_least_when_part_is_hidden(as_user, shop):
    page = as_user("bob")  # bob may not see finance.board_report, downstream of analytics.orders
    explorer(page, shop.url, "analytics.orders")
    page.focus("#lineage-graph")
    page.keyboard.press("Enter")
    page.wait_for_selector("#impact-count")
    assert page.inner_text("#impact-count").startswith("at least ")


# --- the list -------------------------------------------------------------------------------------

@pytest.mark.parametrize("asset, direction, depth", [("analytics.orders", "both", 2), ("raw.orders", "downstream", 10),
                                                     ("finance.board_report", "upstream", 3)])
def test_the_list_holds_the_graphs_edges(as_user, shop, asset, direction, depth):
    page = as_user("alice")
    explorer(page, shop.url, asset, direction, depth)
    answer = api(page, shop.url, "/api/v1/lineage?" + urlencode({"asset": asset, "direction": direction,
                                                                 "depth": depth}))
    drawn_edges = Counter(tuple(e) for e in page.eval_on_selector_all(
        "#lineage-graph g.edge", "gs => gs.map(g => [g.dataset.from, g.dataset.to, g.dataset.mark])"))
    page.click("#show-list")
    assert page.is_visible("#edge-list") and not page.is_visible("#lineage-graph")
    listed = Counter(tuple(e) for e in page.eval_on_selector_all(
        "#edge-list tbody tr[data-mark]", "rows => rows.map(r => [r.dataset.from, r.dataset.to, r.dataset.mark])"))
    expected = Counter((e["from"], e["to"], e["mark"]) for e in answer["edges"])
    assert listed == drawn_edges == expected and expected
    rows = page.eval_on_selector_all("#edge-list tbody tr[data-mark]",
                                     "rows => rows.map(r => [...r.cells].map(c => c.innerText))")
    for row, edge in zip(rows, answer["edges"]):
        assert row[0] == edge["from_name"] and row[1] == edge["to_name"]
        assert row[3] == edge["line"] and row[4] == edge["file"] and row[5] == (edge["revision"] or "")
        assert edge["mark"] in row[2]
    # Each mark is in words on the graph too: its line style and its label.
    for mark, dash in (("declared", None), ("parsed", "8 5")):
        styles = page.eval_on_selector_all(f"#lineage-graph g.edge[data-mark={mark}] .edge-line",
                                           "ps => ps.map(p => p.getAttribute('stroke-dasharray'))")
        assert set(styles) <= {dash}
        labels = page.eval_on_selector_all(f"#lineage-graph g.edge[data-mark={mark}] text.edge-label",
                                           "ts => ts.map(t => t.textContent)")
        assert set(labels) <= {mark}


def test_the_column_detail_of_a_parsed_edge_puts_values_first(as_user, shop):
    page = as_user("alice")
    explorer(page, shop.url, "marts.revenue_by_country", "upstream", 1)
    page.click("#show-list")
    page.click('#edge-list tr[data-mark=parsed] .columns-button >> nth=0')
    panel = page.locator("#edge-panel")
    panel.locator("#value-columns").wait_for()
    tables = page.eval_on_selector_all("#edge-panel table", "ts => ts.map(t => t.id)")
    assert tables[0] == "value-columns"
    text = panel.inner_text()
    assert "revenue" in text and "amount" in text
    if "indirect-columns" in tables:
        sources = page.eval_on_selector_all("#indirect-columns tbody tr", "rs => rs.map(r => r.cells[0].innerText)")
        assert len(sources) == len(set(sources))  # one row per source column


# --- the address ----------------------------------------------------------------------------------

def test_the_address_round_trips(as_user, shop):
    page = as_user("bob")
    explorer(page, shop.url, "analytics.orders", "upstream", 3)
    assert page.input_value("#asset-input") == "analytics.orders"
    assert page.is_checked("input[name=direction][value=upstream]")
    assert page.input_value("#depth-input") == "3"
    assert page.inner_text("#answer-applied") == "direction upstream, depth 3 (as applied)"
    page.fill("#depth-input", "1")
    page.check("input[name=direction][value=downstream]")
    page.click("#explorer-form button[type=submit]")
    drawn(page)
    page.wait_for_function("() => document.querySelector('#answer-applied')?.innerText.includes('depth 1')")
    assert page.url == f"{shop.url}/explorer?asset=analytics.orders&direction=downstream&depth=1"
    names = sorted(page.eval_on_selector_all("#lineage-graph g.node", "gs => gs.map(g => g.dataset.name)"))
    page.reload()
    drawn(page)
    assert sorted(page.eval_on_selector_all("#lineage-graph g.node", "gs => gs.map(g => g.dataset.name)")) == names
    assert page.inner_text("#answer-applied") == "direction downstream, depth 1 (as applied)"
    page.go_back()
    page.wait_for_function("() => document.querySelector('#answer-applied')?.innerText.includes('depth 3')")
    assert page.input_value("#depth-input") == "3"


@pytest.mark.parametrize("depth", ["0", "11"])
def test_a_depth_outside_1_to_10_is_refused_by_name_on_the_page(as_user, shop, depth):
    page = as_user("bob")
    explorer(page, shop.url, "analytics.orders", "both", depth)
    assert page.inner_text("[role=alert]") == f"depth {depth} is outside the allowed range 1 to 10"
    assert page.locator("#lineage-graph").count() == 0


def test_with_no_asset_no_call_is_made_and_a_search_is_offered(as_user, shop):
    page = as_user("dave")
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{shop.url}/explorer")
    drawn(page)
    page.wait_for_timeout(300)
    assert not [u for u in asked if "/api/v1/lineage" in u or "/api/v1/impact" in u or "/api/v1/assets" in u]
    assert "Choose an asset" in page.inner_text("#choose")
    page.fill("#asset-input", "r")
    page.wait_for_selector("#asset-results [role=option]")
    found = page.eval_on_selector_all("#asset-results [role=option]", "os => os.map(o => o.dataset.name)")
    assert found == ["marts.revenue_by_country"]  # dave sees marts.* only
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    drawn(page)
    assert page.url.endswith("/explorer?asset=marts.revenue_by_country&direction=both&depth=2")


# --- visibility --------------------------------------------------------------------------------------

HIDDEN = {"dave": ["analytics.", "raw.", "staging.", "finance.", "sandbox."],
          "bob": ["finance.board_report", "sandbox.experiments", "cfo@shop.example"],
          "bob-ci": ["raw.", "staging.", "finance.", "sandbox."]}
VISIT = {"dave": ["marts.revenue_by_country"], "bob": ["analytics.orders", "analytics.daily_revenue", "raw.orders"],
         "bob-ci": ["analytics.orders", "marts.revenue_by_country"]}


@pytest.mark.parametrize("credential", sorted(HIDDEN))
def test_hidden_assets_never_reach_the_browser(as_user, shop, credential):
    page = as_user(credential)
    bodies = []

    def keep(response):
        if "/api/" in response.url or "/assets/" in response.url or "/explorer" in response.url:
            try:
                bodies.append(response.text())
            except Exception:  # noqa: BLE001 - a redirect has no body
                pass

    page.on("response", keep)
    doms = []
    for asset in VISIT[credential]:
        for direction, depth in (("both", 10), ("upstream", 10), ("downstream", 10)):
            explorer(page, shop.url, asset, direction, depth)
            page.focus("#lineage-graph")
            page.keyboard.press("Enter")
            page.wait_for_selector("#impact-count")
            page.click("#show-list")
            doms.append(page.content())
        page.goto(f"{shop.url}/assets/{asset}")
        drawn(page)
        page.click("#tab-lineage")
        page.wait_for_selector("#panel-lineage #lineage-graph")
        doms.append(page.content())
    page.goto(f"{shop.url}/explorer")
    for text in ("a", "e", "o"):
        page.fill("#asset-input", text)
        page.wait_for_selector("#asset-results li")
        doms.append(page.content())
    assert bodies and doms
    for text in bodies + doms:
        for hidden in HIDDEN[credential]:
            assert hidden not in text, (credential, hidden)


# --- what the answer says, in its own words -----------------------------------------------------------

def test_the_legend_and_the_words_come_from_the_answer(as_user, shop):
    page = as_user("bob")
    explorer(page, shop.url, "analytics.daily_revenue", "both", 2)
    answer = api(page, shop.url, "/api/v1/lineage?asset=analytics.daily_revenue")
    for entry in answer["legend"]:
        item = page.locator(f'#legend li[data-mark="{entry["mark"]}"]')
        assert item.inner_text().replace("\n", " ").endswith(entry["status"])
        assert f'({entry["line"]} line)' in item.inner_text()
    assert page.inner_text("#holds") == (f"cut, holds {answer['holds']}" if answer["cut"] else f"holds {answer['holds']}")
    notes = page.eval_on_selector_all("#answer-notes li", "ls => ls.map(l => l.innerText)")
    assert notes == answer["notes"]
    cut = [a["name"] for a in answer["assets"] if a["note"] == "Some lineage is not visible to you."]
    assert cut  # bob's answer stops next to finance.board_report
    for name in cut:
        assert "Some lineage is not visible to you." in page.text_content(f'g.node[data-name="{name}"]')
    for asset in answer["assets"]:
        if asset["sql_status"]:
            assert asset["sql_status"] in page.text_content(f'g.node[data-name="{asset["name"]}"]')


def test_a_record_page_has_its_one_hop_and_a_lineage_tab(as_user, shop):
    page = as_user("alice")
    page.goto(f"{shop.url}/assets/analytics.orders")
    drawn(page)
    answer = api(page, shop.url, "/api/v1/lineage?asset=analytics.orders&direction=both&depth=1")
    upstream = page.eval_on_selector_all('table.one-hop[data-direction=upstream] tbody tr[data-mark]',
                                         "rs => rs.map(r => [r.dataset.name, r.dataset.mark])")
    downstream = page.eval_on_selector_all('table.one-hop[data-direction=downstream] tbody tr[data-mark]',
                                           "rs => rs.map(r => [r.dataset.name, r.dataset.mark])")
    focus = answer["assets"][0]["id"]
    assert sorted(upstream) == sorted([e["from_name"], e["mark"]] for e in answer["edges"] if e["to"] == focus)
    assert sorted(downstream) == sorted([e["to_name"], e["mark"]] for e in answer["edges"] if e["from"] == focus)
    assert {"declared", "parsed"} <= {mark for _, mark in upstream + downstream}
    assert page.get_attribute("#open-explorer", "href") == "/explorer?asset=analytics.orders&direction=both&depth=2"
    page.click("#tab-lineage")
    page.wait_for_selector("#panel-lineage #lineage-graph g.node")
    assert page.is_hidden("#panel-overview")


def test_a_visitor_logs_in_with_the_form(browser, shop):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{shop.url}/explorer?asset=marts.revenue_by_country&direction=both&depth=2")
        assert "/login" in page.url
        page.fill("#login-name", "dave")
        page.fill("#login-secret", "dave-secret-44")
        page.click("form.login button[type=submit]")
        drawn(page)
        assert page.url == f"{shop.url}/explorer?asset=marts.revenue_by_country&direction=both&depth=2"
        assert page.inner_text("#credential") == "dave"
    finally:
        context.close()


def test_not_computed_is_said_in_words_never_an_empty_graph(browser, tmp_path):
    server = Server("--index", str(tmp_path / "index"), "--project", str(SHOP), "--as", "bob", "--poll", "3600")
    context = browser.new_context()
    try:
        page = context.new_page()
        # The watcher syncs at once; asked before it has written, the answer is "not computed".
        response = page.request.get(f"{server.url}/api/v1/lineage?asset=analytics.orders")
        answer = json.loads(response.text())
        if answer["environment_status"] == "not computed":
            page.goto(f"{server.url}/explorer?asset=analytics.orders&direction=both&depth=2")
            drawn(page)
            if page.locator("#not-computed").count():
                assert "not computed" in page.inner_text("#not-computed")
                assert page.locator("#lineage-graph").count() == 0
        # Once synced, the same address draws the graph.
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            status = json.loads(page.request.get(f"{server.url}/api/v1/status").text())
            if status["synced"] and not status["syncing"]:
                break
            time.sleep(0.5)
        assert status["synced"] and status["last_error"] is None
        page.goto(f"{server.url}/explorer?asset=analytics.orders&direction=both&depth=2")
        drawn(page)
        assert page.locator("#lineage-graph g.node").count() > 1
    finally:
        context.close()
        server.stop()


def test_a_change_set_page_shows_each_held_table_with_its_impact(browser, tmp_path):
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("needs git")
    project = tmp_path / "repo" / "shop"
    shutil.copytree(SHOP, project)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(tmp_path / "repo")]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    table = project / "tables" / "analytics_orders.yaml"
    import yaml

    document = yaml.safe_load(table.read_text())
    document["columns"].pop()
    table.write_text(yaml.safe_dump(document))
    server = Server("--index", str(tmp_path / "index"), "--project", str(project), "--as", "bob", "--poll", "3600")
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/changes?base=HEAD&state=proposed")
        drawn(page, timeout=120_000)
        answer = json.loads(page.request.get(f"{server.url}/api/v1/review?base=HEAD&state=proposed").text())
        assert answer["waits_for_approval"] and page.inner_text("#verdict") == "waits for approval"
        assert "analytics.orders" in page.inner_text("#held")
        section = page.locator('section.impact-section[data-table="analytics.orders"]')
        count = section.locator(".impact-count").inner_text()
        impact = answer["impact"][0]
        assert count.startswith(f"at least {impact['count']} ") and impact["at_least"]
        listed = section.locator("tr[data-name]").evaluate_all("rs => rs.map(r => r.dataset.name)")
        assert sorted(listed) == sorted(a["name"] for a in impact["assets"])
        assert "finance.board_report" not in page.content()  # bob may not see it
        page.goto(f"{server.url}/changes")
        drawn(page)
        assert "Name the base" in page.inner_text("#choose")
    finally:
        context.close()
        server.stop()


def test_the_dbt_fixture_is_explored_as_the_owner_without_a_login(browser, tmp_path):
    from browser_helpers import DBT

    index = sync_into(DBT, tmp_path / "index")
    server = Server("--index", str(index))
    context = browser.new_context()
    try:
        page = context.new_page()
        explorer(page, server.url, "main.orders", "both", 3)
        names = page.eval_on_selector_all("#lineage-graph g.node", "gs => gs.map(g => g.dataset.name)")
        assert "main.orders" in names and "raw.orders" in names
        assert page.inner_text("#credential") == "the project owner"
    finally:
        context.close()
        server.stop()
