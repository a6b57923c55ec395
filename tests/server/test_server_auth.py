"""Who a request is: --as, the owner without an access policy, a login form, an API token."""

from __future__ import annotations

import hashlib

import pytest

from prism_lineage.errors import PrismError
from server_helpers import SECRETS, SHOP, client, sync_into, write_secrets


@pytest.fixture(scope="module")
def shop_index(tmp_path_factory):
    return sync_into(SHOP, tmp_path_factory.mktemp("index"))


@pytest.fixture()
def served(shop_index, tmp_path):
    return client(shop_index, project=SHOP, credentials=write_secrets(tmp_path / "credentials.yaml"))


def test_an_api_request_without_a_credential_is_refused(served):
    response = served.get("/api/v1/lineage", params={"asset": "analytics.orders"})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"]["code"] == "login_required"
    wrong = served.get("/api/v1/lineage", params={"asset": "analytics.orders"},
                       headers={"Authorization": "Bearer not-a-secret"})
    assert wrong.status_code == 401 and "analytics" not in wrong.text
    basic = served.get("/api/v1/assets", headers={"Authorization": "Basic Ym9iOmJvYg=="})
    assert basic.status_code == 401


def test_a_page_without_a_login_goes_to_the_login_form(served):
    response = served.get("/explorer", params={"asset": "analytics.orders", "direction": "both", "depth": "2"})
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=%2Fexplorer%3Fasset%3Danalytics.orders%26direction%3Dboth%26depth%3D2"
    form = served.get("/login")
    assert form.status_code == 200 and 'name="secret"' in form.text and "analytics" not in form.text


def test_logging_in_opens_a_session_and_logging_out_ends_it(served):
    refused = served.post("/login", data={"name": "bob", "secret": "wrong-secret", "next": "/explorer"})
    assert refused.status_code == 401 and "do not match" in refused.text
    response = served.post("/login", data={"name": "dave", "secret": SECRETS["dave"],
                                           "next": "/explorer?asset=marts.revenue_by_country"})
    assert response.status_code == 303 and response.headers["location"] == "/explorer?asset=marts.revenue_by_country"
    cookie = response.cookies.get("prism_session")
    assert cookie and "httponly" in response.headers["set-cookie"].lower()
    assert "samesite=strict" in response.headers["set-cookie"].lower()
    served.cookies.set("prism_session", cookie)
    assert served.get("/api/v1/assets").json()["choose"] == [{"name": "marts.revenue_by_country", "kind": "view"}]
    page = served.get("/explorer")
    assert page.status_code == 200 and ">dave<" in page.text
    served.post("/logout")
    served.cookies.set("prism_session", cookie)  # the old session is over even if the browser kept it
    assert served.get("/api/v1/assets").status_code == 401


@pytest.mark.parametrize("target", ["https://elsewhere.example/", "//elsewhere.example/x", "explorer", "/\\evil"])
def test_after_login_only_a_page_of_this_server(served, target):
    response = served.post("/login", data={"name": "bob", "secret": SECRETS["bob"], "next": target})
    assert response.status_code == 303 and response.headers["location"] == "/explorer"


def test_a_secret_may_be_kept_as_its_digest(shop_index, tmp_path):
    digest = "sha256:" + hashlib.sha256(b"carols-long-secret").hexdigest()
    served = client(shop_index, project=SHOP, credentials=write_secrets(tmp_path / "c.yaml", {"carol": digest}))
    response = served.get("/api/v1/assets", headers={"Authorization": "Bearer carols-long-secret"})
    assert response.status_code == 200 and {"name": "finance.board_report", "kind": "view"} in response.json()["choose"]
    assert served.get("/api/v1/assets", headers={"Authorization": f"Bearer {digest}"}).status_code == 401


@pytest.mark.parametrize("secrets, words", [
    ({"mallory": "mallory-secret"}, "'mallory', not a member or API token"),
    ({"bob": "same-secret-1", "carol": "same-secret-1"}, "have the same secret"),
    ({"bob": "short"}, "at least 8 characters"),
])
def test_a_bad_credentials_file_is_refused_by_name(shop_index, tmp_path, secrets, words):
    with pytest.raises(PrismError, match=words):
        client(shop_index, project=SHOP, credentials=write_secrets(tmp_path / "c.yaml", secrets))


def test_an_access_policy_needs_as_or_a_credentials_file(shop_index):
    with pytest.raises(PrismError, match="has an access policy .* --as NAME, or give --credentials FILE"):
        client(shop_index, project=SHOP)
    with pytest.raises(PrismError, match="credential 'mallory' is not known"):
        client(shop_index, project=SHOP, credential="mallory")


def test_pages_send_a_content_security_policy(served):
    page = served.get("/login")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


def test_a_login_form_larger_than_a_login_is_refused(served):
    response = served.post("/login", content=b"name=bob&secret=" + b"x" * 20_000,
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 413 and "prism_session" not in response.headers.get("set-cookie", "")
