"""Visibility: roles, members, API tokens narrower than their maker, lineage.read; walks over
visible assets only; the note next to a cut; hidden, nonexistent and other-environment assets
refused alike."""

from __future__ import annotations

import pytest

from gov_helpers import shop, table, view, write_project
from prism_lineage.governance.access import AccessPolicy, Member, Role, Token, viewer_for
from prism_lineage.governance.errors import AmbiguousAssetError, AssetNotFoundError
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.impact import impact
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import ParserState, sync
from prism_lineage.governance.statuses import NOT_VISIBLE
from prism_lineage.errors import AccessRefusedError


def test_members_see_what_their_roles_grant():
    lineage, access = shop("prod")
    dave = viewer_for(access, "dave")  # viewer: marts.* only
    answer = explore(lineage, dave, "marts.revenue_by_country", "both", 10)
    assert [a.name for a in answer.assets] == ["marts.revenue_by_country"]
    assert answer.assets[0].note == NOT_VISIBLE and answer.edges == []


def test_the_note_next_to_a_cut_is_exactly_the_sentence_and_nothing_else():
    lineage, access = shop("prod")
    bob = viewer_for(access, "bob")  # analyst: not finance.*
    answer = explore(lineage, bob, "analytics.orders", "downstream", 2)
    notes = {a.name: a.note for a in answer.assets}
    assert notes == {"analytics.orders": None, "analytics.daily_revenue": NOT_VISIBLE,
                     "marts.revenue_by_country": None}
    assert NOT_VISIBLE == "Some lineage is not visible to you."
    text = answer.to_json()
    hidden = lineage.by_name["finance.board_report"]
    assert "board_report" not in text and "cfo@" not in text and hidden not in text


def test_walk_never_passes_through_a_hidden_asset(tmp_path):
    root = write_project(tmp_path, tables=[table("p.a", ["x"])], views=[
        view("h.b", "SELECT x FROM p.a", ["p.a"]), view("p.c", "SELECT x FROM h.b", ["h.b"])],
        access={"owner": "o", "roles": {"r": {"sees": ["p.*"]}}, "members": {"o": {"roles": ["r"]}, "m": {"roles": ["r"]}}})
    project, access = load_project(root)
    lineage = sync(project)
    member = viewer_for(access, "m")
    answer = explore(lineage, member, "p.a", "downstream", 10)
    assert [a.name for a in answer.assets] == ["p.a"]  # p.c is reached only through the hidden h.b
    assert answer.assets[0].note == NOT_VISIBLE
    found = impact(lineage, member, "p.a")
    assert (found.count, found.at_least, found.assets) == (0, True, [])


def test_hidden_nonexistent_and_other_environment_are_refused_alike():
    prod, access = shop("prod")
    dave = viewer_for(access, "dave")
    messages = set()
    for name in ("analytics.orders", "analytics.nothing_here"):
        with pytest.raises(AssetNotFoundError) as refused:
            explore(prod, dave, name)
        messages.add(str(refused.value).replace(name, "NAME"))
    owner_view = viewer_for(access, None)
    with pytest.raises(AssetNotFoundError) as refused:
        explore(prod, owner_view, "sandbox.experiments")  # declared in dev only
    messages.add(str(refused.value).replace("sandbox.experiments", "NAME"))
    assert messages == {"no table or view 'NAME' that you may see in environment 'prod'"}


def test_short_names_are_not_ambiguous_because_of_hidden_assets():
    lineage, access = shop("prod")
    carol = viewer_for(access, "carol")  # analytics.*, finance.*: one 'orders'
    assert explore(lineage, carol, "orders").asset == "analytics.orders"
    with pytest.raises(AmbiguousAssetError):
        explore(lineage, viewer_for(access, "bob"), "orders")


def test_role_limited_to_an_environment():
    dev, access = shop("dev")
    with pytest.raises(AssetNotFoundError):
        explore(dev, viewer_for(access, "carol"), "analytics.orders")  # finance role: prod only


def test_a_token_is_narrower_than_its_maker():
    lineage, access = shop("prod")
    token = viewer_for(access, "bob-ci")  # bob sees raw.*, staging.* too; the token does not
    answer = explore(lineage, token, "analytics.orders", "upstream", 2)
    assert [a.name for a in answer.assets] == ["analytics.orders"]
    assert answer.assets[0].note == NOT_VISIBLE


def test_a_token_is_never_wider_than_its_maker():
    policy = AccessPolicy(owner="o", roles={"r": Role(sees=("a.*",))},
                          members={"o": Member(roles=("r",)), "m": Member(roles=("r",))},
                          tokens={"t": Token(made_by="m", permissions=("lineage.read", "admin.all"), sees=("*",))})
    token = viewer_for(policy, "t")
    assert token.sees("prod", "a.x") and not token.sees("prod", "b.x")
    assert token.may("lineage.read") and not token.may("admin.all")


def test_a_token_without_lineage_read_is_refused_naming_the_permission():
    lineage, access = shop("prod")
    with pytest.raises(AccessRefusedError) as refused:
        explore(lineage, viewer_for(access, "bob-deploy"), "analytics.orders")
    assert str(refused.value) == "credential 'bob-deploy' lacks the permission lineage.read"
    assert refused.value.exit_code == 7
    with pytest.raises(AccessRefusedError):
        impact(lineage, viewer_for(access, "bob-deploy"), "analytics.orders")


def test_an_unknown_credential_is_refused():
    _, access = shop("prod")
    with pytest.raises(AccessRefusedError, match="credential 'mallory' is not known"):
        viewer_for(access, "mallory")


def test_the_parser_failure_is_not_told_to_whoever_cannot_see_the_waiting_sql(tmp_path):
    def project_with(sql):
        return load_project(write_project(
            tmp_path / str(abs(hash(sql))), tables=[table("p.a", ["x"])],
            views=[view("p.v", "SELECT x FROM p.a"), view("h.w", sql)],
            access={"owner": "o", "roles": {"r": {"sees": ["p.*"]}},
                    "members": {"o": {"roles": ["r"]}, "m": {"roles": ["r"]}}}))

    before, access = project_with("SELECT x FROM p.a")
    after, _ = project_with("SELECT x AS y FROM p.a")
    first = sync(before)
    again = sync(after, previous=first, parser=ParserState.STORE_REFUSED)
    member = viewer_for(access, "m")
    hidden_edit = explore(again, member, "p.a", "both", 2)
    unchanged = explore(sync(before, previous=first, parser=ParserState.STORE_REFUSED), member, "p.a", "both", 2)
    assert hidden_edit.marks["parsed"] == "Recorded"
    # The documented limit: the hidden view's parsed edge ended, so the note it raised is gone too.
    assert unchanged.assets[0].note == NOT_VISIBLE and hidden_edit.assets[0].note is None
    assert hidden_edit.model_dump(exclude={"assets"}) == unchanged.model_dump(exclude={"assets"})
