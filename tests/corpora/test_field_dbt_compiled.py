"""Fivetran's dbt_stripe models as dbt compiled them (fivetran_utils' fill_staging_columns,
union_data and dbt_utils macros expanded; tests/fixtures/field_s6/fivetran_stripe.yaml, Apache-2.0)
replayed on DuckDB over the package's own integration-test seed rows (strings tagged so that each
column holds its own values): each model's answer is checked against what DuckDB computes
(tests/corpora/engine_oracle.py), then the model is built for the models downstream of it."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import yaml

from engine_oracle import check

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "field_s6" / "fivetran_stripe.yaml"


@pytest.fixture(scope="module")
def stripe() -> dict:
    return yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))


def test_every_model_agrees_with_duckdb(stripe: dict, tmp_path: Path) -> None:
    con = duckdb.connect()
    for table, text in stripe["seeds"].items():
        path = tmp_path / f"{table}.csv"
        path.write_text(text, encoding="utf-8")
        con.execute(f'create table main."{table}" as select * from read_csv(?, header = true)', [str(path)])
    problems, refused, compared = [], [], 0
    for model in stripe["models"]:
        verdict = check(con, model["sql"], qualified=True)
        compared += verdict.compared
        if verdict.problems:
            problems.append(f"{model['relation']}: {verdict.problems}")
        if verdict.refused:
            refused.append(f"{model['relation']}: {verdict.refused}")
        con.execute(f'create schema if not exists "{model["relation"].split(".")[0]}"')
        con.execute(f"create table {model['relation']} as {model['sql']}")
    assert not problems, "\n".join(problems)
    # Every model of the package is plain SQL once compiled: each one is answered.
    assert not refused, "\n".join(refused)
    assert len(stripe["models"]) >= 30
    # The tables resolved (a schema-less reading would compare nothing).
    assert compared >= 500, compared
