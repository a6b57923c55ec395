"""The explorer's JSON API is the CLI's ``-o json``, byte for byte, for every credential; it
refuses as the CLI refuses; a hidden asset never appears in any answer."""

from __future__ import annotations

import itertools
import json

import pytest

from server_helpers import DBT, SECRETS, SHOP, SHOP_CREDENTIALS, cli_json, client, sync_into, write_secrets

SHOP_ASSETS = ("raw.orders", "raw.payments", "raw.customers", "staging.orders", "staging.payments",
               "analytics.orders", "analytics.daily_revenue", "analytics.customer_revenue",
               "analytics.customer_scores", "marts.revenue_by_country", "finance.board_report",
               "sandbox.experiments", "orders", "no.such_asset")


@pytest.fixture(scope="module")
def shop_index(tmp_path_factory):
    return sync_into(SHOP, tmp_path_factory.mktemp("index"))


@pytest.fixture(scope="module")
def dbt_index(tmp_path_factory):
    return sync_into(DBT, tmp_path_factory.mktemp("dbt-index"))


@pytest.fixture(scope="module")
def logins(shop_index, tmp_path_factory):
    secrets = write_secrets(tmp_path_factory.mktemp("secrets") / "credentials.yaml")
    return client(shop_index, project=SHOP, credentials=secrets)


def bearer(name):
    return {"Authorization": f"Bearer {SECRETS[name]}"}


def cli_lineage(capsys, index, project, credential, *words):
    who = () if credential is None else ("--as", credential)
    return cli_json(capsys, "lineage", *words, "--project", str(project), "--index", str(index), "-o", "json", *who)


@pytest.mark.parametrize("credential", [c for c in SHOP_CREDENTIALS if c is not None])
def test_every_answer_is_the_clis_byte_for_byte(credential, shop_index, logins, capsys):
    for asset, direction, depth in itertools.product(SHOP_ASSETS, ("upstream", "downstream", "both"), (1, 2, 10)):
        response = logins.get("/api/v1/lineage", params={"asset": asset, "direction": direction, "depth": depth},
                              headers=bearer(credential))
        code, out = cli_lineage(capsys, shop_index, SHOP, credential, asset, "--direction", direction,
                                "--depth", str(depth))
        assert response.text == out, (credential, asset, direction, depth)
        assert (response.status_code == 200) == (code == 0)
        assert response.headers["content-type"] == "application/json"
    for asset in SHOP_ASSETS:
        response = logins.get("/api/v1/impact", params={"asset": asset}, headers=bearer(credential))
        _, out = cli_lineage(capsys, shop_index, SHOP, credential, "impact", asset)
        assert response.text == out, (credential, asset)
    for text in ("", "orders", "ANALYTICS", "zzz"):
        response = logins.get("/api/v1/assets", params={"q": text}, headers=bearer(credential))
        argv = ("--search", text) if text else ()
        _, out = cli_lineage(capsys, shop_index, SHOP, credential, *argv)
        assert response.text == out, (credential, text)


def test_the_owners_view_without_an_access_policy_is_the_clis(dbt_index, capsys):
    served = client(dbt_index, project=DBT)
    for asset, direction in itertools.product(("main.orders", "raw.orders", "main.top_customers", "stg_orders"),
                                              ("upstream", "downstream", "both")):
        response = served.get("/api/v1/lineage", params={"asset": asset, "direction": direction, "depth": 3})
        _, out = cli_lineage(capsys, dbt_index, DBT, None, asset, "--direction", direction, "--depth", "3")
        assert response.status_code == 200 and response.text == out
    # The index alone (no --project) serves the one project it holds, alike.
    alone = client(dbt_index)
    assert alone.get("/api/v1/impact", params={"asset": "raw.orders"}).text == \
        served.get("/api/v1/impact", params={"asset": "raw.orders"}).text


def test_as_serves_one_credentials_view_without_a_login(shop_index, capsys):
    served = client(shop_index, project=SHOP, credential="carol")
    response = served.get("/api/v1/lineage", params={"asset": "analytics.orders"})
    _, out = cli_lineage(capsys, shop_index, SHOP, "carol", "analytics.orders")
    assert response.status_code == 200 and response.text == out
    # A header naming another credential changes nothing: --as is the server's only credential.
    assert served.get("/api/v1/lineage", params={"asset": "analytics.orders"},
                      headers=bearer("alice")).text == out


@pytest.mark.parametrize("depth", ["0", "11", "-1", "100"])
def test_a_depth_outside_1_to_10_is_refused_by_name(depth, logins):
    response = logins.get("/api/v1/lineage", params={"asset": "analytics.orders", "depth": depth},
                          headers=bearer("bob"))
    assert response.status_code == 400
    assert response.json() == {"error": {"code": "depth_out_of_range",
                                         "message": f"depth {int(depth)} is outside the allowed range 1 to 10"}}


@pytest.mark.parametrize("params, code, words", [
    ({"asset": "analytics.orders", "depth": "two"}, "usage", "depth 'two' is not a whole number"),
    ({"asset": "analytics.orders", "direction": "sideways"}, "usage", "direction 'sideways' is not one of"),
    ({}, "usage", "no asset named"),
])
def test_bad_parameters_are_refused_by_name(params, code, words, logins):
    response = logins.get("/api/v1/lineage", params=params, headers=bearer("bob"))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and words in error["message"]


def test_a_hidden_asset_is_refused_as_one_that_does_not_exist(logins):
    hidden = logins.get("/api/v1/lineage", params={"asset": "finance.board_report"}, headers=bearer("bob"))
    missing = logins.get("/api/v1/lineage", params={"asset": "finance.no_such"}, headers=bearer("bob"))
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["error"]["code"] == missing.json()["error"]["code"] == "asset_not_found"
    assert hidden.json()["error"]["message"].replace("board_report", "X") == \
        missing.json()["error"]["message"].replace("no_such", "X")


def test_a_token_without_lineage_read_is_refused_with_the_permission_named(logins):
    response = logins.get("/api/v1/lineage", params={"asset": "analytics.orders"}, headers=bearer("bob-deploy"))
    assert response.status_code == 403
    assert response.json()["error"] == {"code": "permission_refused",
                                        "message": "credential 'bob-deploy' lacks the permission lineage.read"}


def hidden_from(credential):
    """The names and ids of the shop's assets the credential may not see (from the owner's answers)."""
    from prism_lineage.governance.access import viewer_for
    from prism_lineage.governance.loading import load_project
    from prism_lineage.governance.rollup import sync

    project, access = load_project(SHOP)
    viewer = viewer_for(access, credential)
    lineage = sync(project, "prod", held_for_review=True)
    hidden = [a for a in lineage.assets.values() if not viewer.sees("prod", a.full_name)]
    return [a.full_name for a in hidden] + [a.id for a in hidden]


@pytest.mark.parametrize("credential", ["bob", "carol", "dave", "bob-ci"])
def test_no_response_holds_a_hidden_asset(credential, logins):
    hidden = hidden_from(credential)
    assert hidden, "the example must hide something from this credential"
    bodies = []
    for asset, direction, depth in itertools.product(SHOP_ASSETS, ("upstream", "downstream", "both"), (1, 10)):
        bodies.append(logins.get("/api/v1/lineage", params={"asset": asset, "direction": direction, "depth": depth},
                                 headers=bearer(credential)).text)
    for asset in SHOP_ASSETS:
        bodies.append(logins.get("/api/v1/impact", params={"asset": asset}, headers=bearer(credential)).text)
    for text in ("", "a", "finance", "sandbox", "raw"):
        bodies.append(logins.get("/api/v1/assets", params={"q": text}, headers=bearer(credential)).text)
    for body in bodies:
        answer = json.loads(body)
        if "error" in answer:
            continue  # a refusal names only what was asked (the same for hidden and missing: above)
        for name in hidden:
            assert name not in body, (credential, name)


def test_search_finds_only_visible_assets(logins):
    found = logins.get("/api/v1/assets", params={"q": ""}, headers=bearer("dave")).json()
    assert found["choose"] == [{"name": "marts.revenue_by_country", "kind": "view"}]
    found = logins.get("/api/v1/assets", params={"q": "orders"}, headers=bearer("carol")).json()
    assert [a["name"] for a in found["choose"]] == ["analytics.orders"]


def test_not_computed_before_the_first_sync(tmp_path, capsys):
    served = client(tmp_path / "empty-index", project=SHOP, credential="bob")
    response = served.get("/api/v1/lineage", params={"asset": "analytics.orders"})
    answer = response.json()
    assert response.status_code == 200
    assert answer["environment_status"] == "not computed" and answer["assets"] == [] and answer["edges"] == []
    assert answer["marks"]["parsed"] == "Not recorded yet"
    assert answer["notes"][0].startswith("Lineage of this environment is not computed")
    _, out = cli_lineage(capsys, tmp_path / "empty-index", SHOP, "bob", "analytics.orders")
    assert response.text == out


def test_status_names_the_sync_the_answers_are_as_of(shop_index, logins):
    status = logins.get("/api/v1/status", headers=bearer("dave")).json()
    assert status["project"] == "shop" and status["environment"] == "prod" and status["synced"] is True
    answer = logins.get("/api/v1/lineage", params={"asset": "marts.revenue_by_country"}, headers=bearer("dave"))
    assert answer.json()["as_of"] == status["as_of"]


def test_a_change_set_is_the_clis_review(tmp_path, capsys):
    import yaml

    from server_helpers import copy_project, git_commit

    project = copy_project(SHOP, tmp_path / "repo" / "shop")
    git_commit(tmp_path / "repo")
    table = project / "tables" / "analytics_orders.yaml"
    document = yaml.safe_load(table.read_text())
    document["columns"].pop()
    table.write_text(yaml.safe_dump(document))
    index = sync_into(project, tmp_path / "index")
    for credential in ("bob", "dave", "alice"):
        served = client(index, project=project, credential=credential)
        for base, state in (("HEAD", "proposed"), ("HEAD", "draft"), ("no-such-rev", "proposed"),
                            ("--output=/tmp/x", "proposed")):
            response = served.get("/api/v1/review", params={"base": base, "state": state})
            _, out = cli_json(capsys, "review", f"--base-rev={base}", "--state", state, "--project", str(project),
                              "--env", "prod", "--as", credential, "-o", "json")
            assert response.text == out, (credential, base, state)
    assert json.loads(served.get("/api/v1/review", params={"base": "HEAD"}).text)["waits_for_approval"] is True
