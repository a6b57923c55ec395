"""Observed edges in the explorer (issue 13): the shop's dev environment after ``observe`` of the
runs of examples/openlineage/shop_runs.py — the state docs/explorer/shop-observed.png shows
(docs/openlineage.md, "In the explorer").  Each observed edge of the answer is drawn, dotted, with
its word, beside the declared and parsed edges of the same pair, and says which run showed it."""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlencode

import pytest

from browser_helpers import SHOP, drawn, observed_shop, served

ASSET = "analytics.customer_revenue"
# What the three runs show around analytics.customer_revenue (examples/openlineage/shop_runs.py).
OBSERVED = {("analytics.orders", ASSET), ("raw.customers", ASSET), (ASSET, "analytics.customer_scores"),
            ("staging.orders", "analytics.orders"), ("staging.payments", "analytics.orders")}


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    def arguments():
        index = observed_shop(tmp_path_factory.mktemp("observed") / "index")
        return "--index", str(index), "--project", str(SHOP), "--env", "dev", "--as", "alice"

    with served(arguments) as (browser, url):
        found = browser.new_page(viewport={"width": 1500, "height": 940})
        found.goto(f"{url}/explorer?" + urlencode({"asset": ASSET, "direction": "both", "depth": 2}))
        drawn(found)
        found.answer = found.evaluate("async (u) => (await fetch(u)).json()", f"{url}/api/v1/lineage?"
                                      + urlencode({"asset": ASSET, "direction": "both", "depth": 2}))
        yield found


def test_every_observed_edge_of_the_answer_is_drawn_dotted_with_its_word(page):
    assert page.evaluate("document.body.dataset.state") == "drawn"
    observed = [e for e in page.answer["edges"] if e["mark"] == "observed"]
    assert {(e["from_name"], e["to_name"]) for e in observed} == OBSERVED
    drawn_edges = page.eval_on_selector_all(
        "#lineage-graph g.edge[data-mark=observed]",
        """gs => gs.map(g => {
            const line = g.querySelector('.edge-line');
            const box = line.getBBox();
            return {from: g.dataset.fromName, to: g.dataset.toName, dash: line.getAttribute('stroke-dasharray'),
                    computed: getComputedStyle(line).strokeDasharray, stroke: getComputedStyle(line).stroke,
                    width: box.width, height: box.height, label: g.querySelector('text.edge-label').textContent,
                    title: g.querySelector('title').textContent};
        })""")
    assert Counter((d["from"], d["to"]) for d in drawn_edges) == Counter((e["from_name"], e["to_name"])
                                                                          for e in observed)
    by_pair = {(e["from_name"], e["to_name"]): e for e in observed}
    for edge in drawn_edges:
        assert edge["dash"] == "2 4" and edge["computed"].replace("px", "") == "2, 4"
        assert edge["stroke"] not in ("none", "") and edge["width"] + edge["height"] > 10
        assert edge["label"] == "observed"
        answer = by_pair[edge["from"], edge["to"]]
        assert edge["title"] == (f"observed edge (dotted line): {edge['from']} → {edge['to']}, observed in a run at "
                                 f"{answer['seen_at']} (run {answer['run_id']}) in {answer['file']}")
    legend = page.inner_text('#legend li[data-mark="observed"]').replace("\n", " ")
    assert "(dotted line)" in legend and legend.endswith("Recorded")


def test_an_observed_edge_is_painted_where_it_runs(page):
    """Not only in the DOM: the middle of each dotted line is the topmost thing painted there."""
    hits = page.eval_on_selector_all(
        "#lineage-graph g.edge[data-mark=observed]",
        """gs => gs.map(g => {
            g.scrollIntoView({block: 'center', inline: 'center'});
            const line = g.querySelector('.edge-line');
            const middle = line.getPointAtLength(line.getTotalLength() / 2);
            const m = line.getScreenCTM();
            const x = m.a * middle.x + m.c * middle.y + m.e, y = m.b * middle.x + m.d * middle.y + m.f;
            const top = document.elementFromPoint(x, y);
            return top !== null && top.closest('g.edge') === g;
        })""")
    assert hits and all(hits)


def test_observed_beside_declared_and_parsed(page):
    """staging.orders -> analytics.orders is declared, parsed and observed: three lines, one per mark."""
    marks = page.eval_on_selector_all(
        '#lineage-graph g.edge[data-from-name="staging.orders"][data-to-name="analytics.orders"]',
        "gs => gs.map(g => [g.dataset.mark, g.querySelector('.edge-line').getAttribute('d')])")
    assert sorted(m for m, _ in marks) == ["declared", "observed", "parsed"]
    assert len({d for _, d in marks}) == 3  # drawn apart, not on top of each other


def test_an_observed_edge_shows_the_runs_column_detail_or_says_there_is_none(page):
    page.locator(f'#lineage-graph g.edge[data-mark=observed][data-from-name="analytics.orders"]'
                 f'[data-to-name="{ASSET}"]').click()
    page.wait_for_selector("#edge-panel #value-columns")
    rows = page.eval_on_selector_all("#value-columns tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.innerText))")
    assert rows == [["customer_id", "customer_id", "identity", "unknown"], ["revenue", "amount", "aggregate", "unknown"]]
    assert "observed in a run at" in page.inner_text("#edge-panel .how")
    # The Airflow run reported no column lineage: said so, not "a declared edge".
    # (dispatched: the centre of its box is under the parsed edge's wider click area, which ELK
    # routes beside it; the painting test above checks each dotted line is visible)
    page.locator('#lineage-graph g.edge[data-mark=observed][data-from-name="staging.orders"]').dispatch_event("click")
    page.wait_for_function("() => document.querySelector('#edge-heading').textContent.startsWith('staging.orders')")
    text = page.inner_text("#edge-panel")
    assert "The run reported no column lineage for this edge." in text and "declared edge" not in text
