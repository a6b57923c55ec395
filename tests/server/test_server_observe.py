"""POST /api/v1/lineage: one OpenLineage event recorded as observed edges, by a credential that
may write; the explorer then draws them dotted."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone

import pytest
import yaml

from server_helpers import SHOP, client, copy_project, sync_into, write_secrets


def event(inputs, outputs):
    return json.dumps({
        "eventType": "COMPLETE", "eventTime": datetime.now(timezone.utc).isoformat(),
        "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.24.0/integration/spark",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())}, "job": {"namespace": "spark", "name": "nightly"},
        "inputs": [{"namespace": "warehouse", "name": n} for n in inputs],
        "outputs": [{"namespace": "warehouse", "name": n} for n in outputs]}).encode()


@pytest.fixture()
def shop(tmp_path):
    """A copy of the shop whose token bob-ci may also write lineage."""
    project = copy_project(SHOP, tmp_path / "shop")
    access = yaml.safe_load((project / "access.yaml").read_text())
    access["tokens"]["bob-ci"]["permissions"].append("lineage.write")
    access["roles"]["analyst"]["permissions"].append("lineage.write")
    (project / "access.yaml").write_text(yaml.safe_dump(access))
    index = sync_into(project, tmp_path / "index")
    return project, index, write_secrets(tmp_path / "credentials.yaml")


def test_an_event_becomes_an_observed_edge(shop):
    project, index, secrets = shop
    served = client(index, project=project, credentials=secrets)
    token = {"Authorization": "Bearer bob-ci-token-5"}
    response = served.post("/api/v1/lineage", content=event(["analytics.orders"], ["marts.revenue_by_country"]),
                           headers=token)
    assert response.status_code == 201 and response.json()["edges"] == 1
    answer = served.get("/api/v1/lineage", params={"asset": "marts.revenue_by_country", "direction": "upstream",
                                                  "depth": 1}, headers=token).json()
    observed = [e for e in answer["edges"] if e["mark"] == "observed"]
    assert [(e["from_name"], e["to_name"], e["line"]) for e in observed] == \
        [("analytics.orders", "marts.revenue_by_country", "dotted")]
    assert answer["marks"]["observed"] == "Recorded"


def test_writing_needs_lineage_write(shop):
    project, index, secrets = shop
    served = client(index, project=project, credentials=secrets)
    body = event(["analytics.orders"], ["marts.revenue_by_country"])
    refused = served.post("/api/v1/lineage", content=body, headers={"Authorization": "Bearer dave-secret-44"})
    assert refused.status_code == 403
    assert refused.json()["error"] == {"code": "permission_refused",
                                       "message": "credential 'dave' lacks the permission lineage.write"}
    assert served.post("/api/v1/lineage", content=body).status_code == 401


def test_a_bad_event_is_refused_with_its_reason(shop):
    project, index, secrets = shop
    served = client(index, project=project, credentials=secrets)
    token = {"Authorization": "Bearer bob-secret-22"}
    bad = served.post("/api/v1/lineage", content=b'{"eventType": "COMPLETE"}', headers=token)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_event"
    huge = served.post("/api/v1/lineage", content=b"{" + b" " * (3 * 1024 * 1024) + b"}", headers=token)
    assert huge.status_code == 413 and huge.json()["error"]["code"] == "event_too_large"


def test_the_servers_size_limit_is_the_ingestions():
    from prism_lineage.openlineage.events import MAX_EVENT_BYTES
    from prism_lineage.server.app import MAX_EVENT_BYTES as SERVER_LIMIT

    assert SERVER_LIMIT == MAX_EVENT_BYTES
