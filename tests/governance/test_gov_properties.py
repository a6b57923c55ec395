"""Property tests over random graphs and random visibility.

* no hidden asset's id, name, kind or count appears in any answer, text or JSON: renaming the
  hidden assets, changing their kinds and adding hidden assets and edges among them leaves
  every answer byte-identical;
* walks never pass through hidden assets: the explorer holds exactly what a breadth-first walk
  over the visible subgraph reaches within the depth (up to the cut), impact exactly what is
  downstream in the visible subgraph;
* depth and cut rules hold; a hidden asset and a nonexistent one are refused alike.
"""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prism_lineage.governance.access import Grant, Viewer
from prism_lineage.governance.errors import AssetNotFoundError
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.impact import AT_LEAST_NOTE, impact
from prism_lineage.governance.rollup import Asset, EnvironmentLineage, LineageEdge, asset_id
from prism_lineage.governance.sql_reading import ColumnLink
from prism_lineage.governance.statuses import FILE_SQL_NOTE, EnvironmentStatus, Mark, ParserState, SqlStatus, Via
from prism_lineage.governance.text import render_explorer, render_impact

VIEWER = Viewer("m", frozenset({"lineage.read"}), (Grant(("vis.*",), None),))
CUT_AT = 6
KINDS = ("table", "view")
STATUSES = (None, SqlStatus.NOT_READ_YET, SqlStatus.NOT_PARSED, SqlStatus.IN_FILE)


@st.composite
def graphs(draw):
    size = draw(st.integers(2, 16))
    hidden = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    hidden[0] = False  # at least one visible asset to ask about
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=size, max_size=size))
    statuses = draw(st.lists(st.sampled_from(STATUSES), min_size=size, max_size=size))
    pairs = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1),
                                    st.sampled_from((Mark.DECLARED, Mark.PARSED))), max_size=3 * size))
    return {"hidden": hidden, "kinds": kinds, "statuses": statuses,
            "edges": [(a, b, m) for a, b, m in pairs if a != b]}


def build(spec, *, hidden_names=None, hidden_kinds=None, extra_hidden=0, extra_edges=()) -> EnvironmentLineage:
    """A lineage from a spec; the keyword arguments change only what is hidden."""
    names = []
    for i, is_hidden in enumerate(spec["hidden"]):
        names.append((hidden_names or {}).get(i, f"hid.n{i}") if is_hidden else f"vis.n{i}")
    kinds = [(hidden_kinds or {}).get(i, k) for i, k in enumerate(spec["kinds"])]
    statuses = list(spec["statuses"])
    for j in range(extra_hidden):
        names.append(f"hid.extra{j}")
        kinds.append("view")
        statuses.append(None)
    assets = {}
    for i, name in enumerate(names):
        identifier = asset_id("p", "e", name)
        assets[identifier] = Asset(identifier, name, name.split(".")[0], name.split(".")[1], kinds[i], f"o{i % 3}",
                                   None, i % 2 == 0, f"f{i}.yaml", (), statuses[i])
    ids = [asset_id("p", "e", n) for n in names]
    edges = {}
    for a, b, mark in [*spec["edges"], *extra_edges]:
        columns = (ColumnLink("x", "y", "value", "identity", "exact"),) if mark is Mark.PARSED else None
        edge = LineageEdge(ids[a], ids[b], mark, Via.VIEW, f"views/{b}.yaml" if b < len(spec["hidden"]) else "x",
                           columns)
        edges[(edge.source, edge.target, edge.mark)] = edge
    ordered = tuple(sorted(edges.values(), key=lambda e: (assets[e.source].full_name, assets[e.target].full_name,
                                                          e.mark)))
    # Built by hand: no SQL was read, so no answer depends on more than which assets are visible.
    return EnvironmentLineage("p", "e", EnvironmentStatus.COMPUTED, assets, ordered, ParserState.RAN,
                              visibility_independent=True)


def visible_indices(spec):
    return [i for i, h in enumerate(spec["hidden"]) if not h]


def answers(lineage, spec, name, direction, depth):
    found = explore(lineage, VIEWER, name, direction, depth, cut_at=CUT_AT)
    effect = impact(lineage, VIEWER, name)
    return found.to_json() + render_explorer(found) + effect.to_json() + render_impact(effect)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(spec=graphs(), data=st.data())
def test_nothing_hidden_leaks(spec, data):
    hidden = [i for i, h in enumerate(spec["hidden"]) if h]
    focus = data.draw(st.sampled_from(visible_indices(spec)))
    direction = data.draw(st.sampled_from(("upstream", "downstream", "both")))
    depth = data.draw(st.integers(1, 10))
    base = build(spec)
    extra = data.draw(st.integers(0, 3))
    size = len(spec["hidden"])
    hidden_pool = hidden + list(range(size, size + extra))
    extra_edges = []
    if len(hidden_pool) >= 2:
        extra_edges = data.draw(st.lists(st.tuples(st.sampled_from(hidden_pool), st.sampled_from(hidden_pool),
                                                   st.sampled_from((Mark.DECLARED, Mark.PARSED))), max_size=6))
        extra_edges = [(a, b, m) for a, b, m in extra_edges if a != b]
    variant = build(spec, hidden_names={i: f"hid.renamed{i}" for i in hidden},
                    hidden_kinds={i: "view" if spec["kinds"][i] == "table" else "table" for i in hidden},
                    extra_hidden=extra, extra_edges=extra_edges)
    name = f"vis.n{focus}"
    text = answers(base, spec, name, direction, depth)
    assert text == answers(variant, spec, name, direction, depth)
    for i in hidden:
        assert f"hid.n{i}" not in text and asset_id("p", "e", f"hid.n{i}") not in text


@SETTINGS
@given(spec=graphs(), data=st.data())
def test_walks_stay_on_visible_assets_within_depth_and_cut(spec, data):
    lineage = build(spec)
    focus = data.draw(st.sampled_from(visible_indices(spec)))
    direction = data.draw(st.sampled_from(("upstream", "downstream", "both")))
    depth = data.draw(st.integers(1, 10))
    answer = explore(lineage, VIEWER, f"vis.n{focus}", direction, depth, cut_at=CUT_AT)

    graph = nx.DiGraph()
    graph.add_nodes_from(visible_indices(spec))
    graph.add_edges_from((a, b) for a, b, _ in spec["edges"] if not spec["hidden"][a] and not spec["hidden"][b])
    reach: dict[int, int] = {focus: 0}
    sides = {"upstream": [graph.reverse()], "downstream": [graph], "both": [graph.reverse(), graph]}[direction]
    for side in sides:
        for node, distance in nx.single_source_shortest_path_length(side, focus, cutoff=depth).items():
            reach[node] = min(distance, reach.get(node, distance))
    expected = {f"vis.n{i}": d for i, d in reach.items()}

    shown = {a.name: a.distance for a in answer.assets}
    assert all(name.startswith("vis.") for name in shown)
    assert answer.holds == len(answer.assets) <= CUT_AT
    assert answer.cut == (len(expected) > CUT_AT)
    assert all(expected.get(name) == distance <= depth for name, distance in shown.items())
    if not answer.cut:
        assert shown == expected
    else:  # the cut keeps the nearest assets
        assert max(shown.values()) <= min(d for n, d in expected.items() if n not in shown)
    held = {a.id for a in answer.assets}
    assert all(e.source in held and e.target in held for e in answer.edges)
    assert answer.sql_not_read == sum(1 for a in answer.assets if a.sql_status is not None)


@SETTINGS
@given(spec=graphs(), data=st.data())
def test_impact_is_the_visible_downstream_and_at_least_says_when_part_is_hidden(spec, data):
    lineage = build(spec)
    focus = data.draw(st.sampled_from(visible_indices(spec)))
    answer = impact(lineage, VIEWER, f"vis.n{focus}")
    full = nx.DiGraph()
    full.add_nodes_from(range(len(spec["hidden"])))
    full.add_edges_from((a, b) for a, b, _ in spec["edges"])
    visible = full.subgraph(visible_indices(spec))
    downstream = nx.descendants(visible, focus)
    assert sorted(a.name for a in answer.assets) == sorted(f"vis.n{i}" for i in downstream)
    assert answer.count == len(downstream)
    next_to_hidden = any(spec["hidden"][s] for n in downstream | {focus} for s in full.successors(n))
    # A visible asset outside the list whose SQL was not read may read the focus too (trial 03).
    unread_elsewhere = [i for i in visible_indices(spec) if spec["statuses"][i] is not None
                        and i not in downstream | {focus}]
    assert answer.at_least == (next_to_hidden or bool(unread_elsewhere))
    assert (AT_LEAST_NOTE in answer.notes) == next_to_hidden
    assert any(n.startswith(f"There may be more: {len(unread_elsewhere)} other asset")
               for n in answer.notes) == bool(unread_elsewhere)
    assert (FILE_SQL_NOTE in answer.notes) == any(spec["statuses"][i] is SqlStatus.IN_FILE
                                                  for i in visible_indices(spec))


@SETTINGS
@given(spec=graphs())
def test_a_hidden_asset_is_refused_like_a_nonexistent_one(spec):
    lineage = build(spec)
    for i, is_hidden in enumerate(spec["hidden"]):
        name = f"hid.n{i}"
        with pytest.raises(AssetNotFoundError) as refused:
            explore(lineage, VIEWER, name)
        assert str(refused.value) == f"no table or view '{name}' that you may see in environment 'e'"
