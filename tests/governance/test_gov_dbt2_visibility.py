"""The visibility properties re-run over the second dbt fixture (issue 10, Tests): for any set of
its assets a credential may not see, every answer it can ask (explore in every direction at depth
10, and impact; text and JSON) names no hidden asset — not as an asset, an edge end, a read note
or a declaration note — and a hidden asset is refused exactly like one that does not exist.  The
fixture has what makes this hard: one relation under several dbt names, declared edges through
ephemeral models, read notes naming other assets, SQL read again for each scope."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gov_helpers import DBT2
from prism_lineage.governance.access import Grant, Viewer
from prism_lineage.governance.errors import AssetNotFoundError
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.impact import impact
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync
from prism_lineage.governance.text import render_explorer, render_impact

_PROJECT, _ = load_project(DBT2)
_LINEAGE = sync(_PROJECT)
NAMES = sorted(a.full_name for a in _LINEAGE.assets.values())
ENV = _LINEAGE.environment


def _named(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text) is not None


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hidden=st.sets(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES) - 1))
def test_no_answer_names_a_hidden_asset_and_hidden_is_refused_like_nonexistent(hidden):
    visible = tuple(n for n in NAMES if n not in hidden)
    viewer = Viewer("reader", frozenset({"lineage.read"}), (Grant(visible, None),))
    for name in visible:
        shown = []
        for direction in ("upstream", "downstream", "both"):
            found = explore(_LINEAGE, viewer, name, direction, 10)
            shown += [found.to_json(), render_explorer(found)]
            document = json.loads(found.to_json())
            assert {a["name"] for a in document["assets"]} <= set(visible)
            assert {e["from_name"] for e in document["edges"]} | {e["to_name"] for e in document["edges"]} \
                <= set(visible)
        effect = impact(_LINEAGE, viewer, name)
        assert {a.name for a in effect.assets} <= set(visible)
        shown += [effect.to_json(), render_impact(effect)]
        text = "\n".join(shown)
        leaked = [h for h in hidden if _named(text, h)]
        assert not leaked, (name, leaked)
    for name in hidden:
        with pytest.raises(AssetNotFoundError) as refused:
            explore(_LINEAGE, viewer, name, "both", 1)
        assert str(refused.value) == f"no table or view '{name}' that you may see in environment '{ENV}'"
