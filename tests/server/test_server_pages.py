"""The pages: their addresses, what a record page holds, the vendored layout library."""

from __future__ import annotations

import hashlib
import html
import json
import re

import pytest

from server_helpers import ROOT, SHOP, client, sync_into

STATIC = ROOT / "prism_lineage" / "server" / "static"


@pytest.fixture(scope="module")
def shop_index(tmp_path_factory):
    return sync_into(SHOP, tmp_path_factory.mktemp("index"))


def test_the_explorer_page_is_served_at_its_address(shop_index):
    served = client(shop_index, project=SHOP, credential="bob")
    page = served.get("/explorer", params={"asset": "analytics.orders", "direction": "upstream", "depth": "3"})
    assert page.status_code == 200
    assert 'id="explorer-form"' in page.text and "/static/vendor/elkjs/elk-api.js" in page.text
    assert served.get("/").headers["location"] == "/explorer"


def test_a_record_page_holds_the_one_hop_answer(shop_index, capsys):
    from server_helpers import cli_json

    served = client(shop_index, project=SHOP, credential="bob")
    page = served.get("/assets/analytics.orders")
    assert page.status_code == 200
    embedded = re.search(r'<script type="application/json" id="one-hop-answer">(.*?)</script>', page.text, re.S)
    _, out = cli_json(capsys, "lineage", "analytics.orders", "--depth", "1", "--project", str(SHOP), "--index",
                      str(shop_index), "--as", "bob", "-o", "json")
    assert json.loads(embedded.group(1)) == json.loads(out)
    assert 'role="tab"' in page.text and "Overview" in page.text and "Lineage" in page.text


def test_a_hidden_record_is_refused_as_a_missing_one(shop_index):
    served = client(shop_index, project=SHOP, credential="dave")
    hidden = served.get("/assets/analytics.orders")
    missing = served.get("/assets/analytics.nothing")
    assert hidden.status_code == missing.status_code == 404
    assert "no table or view 'analytics.orders' that you may see" in html.unescape(hidden.text)
    assert "one-hop-answer" not in hidden.text
    # Nothing of the asset but the name typed: not its owner, kind, or what it reads.
    assert "finance@shop.example" not in hidden.text and "staging" not in hidden.text


def test_a_name_in_a_page_is_escaped(shop_index):
    served = client(shop_index, project=SHOP, credential="bob")
    page = served.get("/assets/<script>alert(1)</script>")
    assert page.status_code == 404 and "<script>alert(1)" not in page.text and "&lt;script&gt;" in page.text


# The files lib/elk-api.js and lib/elk-worker.min.js of the npm package elkjs@0.12.1, unchanged.
ELKJS = {"elk-api.js": "ccca46175c05bbd280b5de6c9853103711e52c666a101f145b717e345363e24d",
         "elk-worker.min.js": "dca3a19d9ec37f5634bf5876b4ebd2455c3f43f0d32570136c13c13edaba9bfb"}


def test_the_layout_library_is_vendored_unchanged_with_its_licence():
    folder = STATIC / "vendor" / "elkjs"
    assert {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in ELKJS} == ELKJS
    assert sorted(p.name for p in folder.glob("*.js")) == sorted(ELKJS)  # nothing else is shipped
    assert "Eclipse Public License - v 2.0" in (STATIC / "vendor" / "elkjs" / "LICENSE.md").read_text()


def test_static_files_are_served(shop_index):
    served = client(shop_index, project=SHOP, credential="bob")
    script = served.get("/static/explorer.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    for name in ELKJS:
        assert served.get(f"/static/vendor/elkjs/{name}").status_code == 200


def test_the_script_never_parses_answer_text_as_html():
    script = (STATIC / "explorer.js").read_text()
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script and "document.write" not in script
