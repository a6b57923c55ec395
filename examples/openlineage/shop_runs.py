"""OpenLineage run events of a night of the example shop's jobs, as JSON lines on standard output.

    python examples/openlineage/shop_runs.py > /tmp/shop-runs.jsonl
    prism-lineage observe /tmp/shop-runs.jsonl --index /tmp/shop-index --project examples/shop --env dev

Made with openlineage-python's classes, shaped as the integrations emit them, timed in the last
hours (an observation older than the retention, 30 days, would give no edge):

* Airflow loads analytics.orders from staging.orders and staging.payments — an edge the project
  declares and its SQL shows too: the run shows it a third way.
* Spark computes analytics.customer_revenue (its SQL is kept in a file, which prism-lineage does
  not read) and then analytics.customer_scores (SQL the parser cannot read): only the runs show
  what they read.  Spark names a catalog table by its storage location and gives its table name
  in the ``symlinks`` facet; the column-lineage facet names the location.
"""

from __future__ import annotations

import sys
import uuid
from datetime import datetime, timedelta, timezone

from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import column_lineage_dataset as cl
from openlineage.client.facet_v2 import parent_run, processing_engine_run, sql_job, symlinks_dataset
from openlineage.client.serde import Serde

SPARK = "https://github.com/OpenLineage/OpenLineage/tree/1.26.0/integration/spark"
AIRFLOW = "https://github.com/apache/airflow/tree/providers-openlineage/1.14.0"
LAKE = "s3://shop-lake"
METASTORE = "hive://metastore:9083"
POSTGRES = "postgres://shop-db:5432"


def lake_table(table: str, output: bool = False, facets: dict | None = None):
    """A Spark catalog table: named by its location, its table name in the symlinks facet."""
    schema, name = table.split(".")
    symlinks = symlinks_dataset.SymlinksDatasetFacet(
        identifiers=[symlinks_dataset.Identifier(METASTORE, table, "TABLE")])
    cls = OutputDataset if output else InputDataset
    return cls(LAKE, f"/warehouse/{schema}.db/{name}", facets={"symlinks": symlinks, **(facets or {})})


def lake_field(table: str, field: str, kind: str, subtype: str) -> cl.InputField:
    schema, name = table.split(".")
    return cl.InputField(LAKE, f"/warehouse/{schema}.db/{name}", field, [cl.Transformation(kind, subtype)])


def spark_run(now: datetime, hours_ago: float, job: str, inputs, outputs) -> RunEvent:
    return RunEvent(
        eventType=RunState.COMPLETE, eventTime=(now - timedelta(hours=hours_ago)).isoformat(), producer=SPARK,
        run=Run(runId=str(uuid.uuid4()), facets={
            "processing_engine": processing_engine_run.ProcessingEngineRunFacet(version="3.5.3", name="spark"),
            "parent": parent_run.ParentRunFacet(run=parent_run.Run(runId=str(uuid.uuid4())),
                                                job=parent_run.Job(namespace="spark", name="growth_nightly"))}),
        job=Job(namespace="spark", name=job), inputs=inputs, outputs=outputs)


def events(now: datetime) -> list[RunEvent]:
    revenue_lineage = cl.ColumnLineageDatasetFacet(
        fields={
            "customer_id": cl.Fields(inputFields=[
                lake_field("analytics.orders", "customer_id", "DIRECT", "IDENTITY")]),
            "revenue": cl.Fields(inputFields=[lake_field("analytics.orders", "amount", "DIRECT", "AGGREGATION")]),
        },
        dataset=[lake_field("analytics.orders", "customer_id", "INDIRECT", "GROUP_BY"),
                 lake_field("raw.customers", "id", "INDIRECT", "JOIN")])
    scores_lineage = cl.ColumnLineageDatasetFacet(fields={
        "customer_id": cl.Fields(inputFields=[
            lake_field("analytics.customer_revenue", "customer_id", "DIRECT", "IDENTITY")]),
        "score": cl.Fields(inputFields=[
            lake_field("analytics.customer_revenue", "revenue", "DIRECT", "TRANSFORMATION")])})
    load_orders = RunEvent(
        eventType=RunState.COMPLETE, eventTime=(now - timedelta(hours=3)).isoformat(), producer=AIRFLOW,
        run=Run(runId=str(uuid.uuid4())),
        job=Job(namespace="airflow", name="shop_ingest.load_analytics_orders", facets={
            "sql": sql_job.SQLJobFacet(query="INSERT INTO analytics.orders SELECT … FROM staging.orders JOIN "
                                             "staging.payments USING (order_id)")}),
        inputs=[InputDataset(POSTGRES, "staging.orders"), InputDataset(POSTGRES, "staging.payments")],
        outputs=[OutputDataset(POSTGRES, "analytics.orders")])
    customer_revenue = spark_run(
        now, 2, "growth_nightly.customer_revenue",
        [lake_table("analytics.orders"), lake_table("raw.customers")],
        [lake_table("analytics.customer_revenue", output=True, facets={"columnLineage": revenue_lineage})])
    customer_scores = spark_run(
        now, 1, "growth_nightly.customer_scores",
        [lake_table("analytics.customer_revenue")],
        [lake_table("analytics.customer_scores", output=True, facets={"columnLineage": scores_lineage})])
    return [load_orders, customer_revenue, customer_scores]


def main() -> int:
    for event in events(datetime.now(timezone.utc)):
        sys.stdout.write(Serde.to_json(event) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
