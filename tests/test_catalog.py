"""How a query's table names meet the schema's (docs/schema.md): by suffix, either way."""

from __future__ import annotations

import pytest

from prism_lineage import AmbiguousTableError, Catalog

SCHEMA = {"shop.sales.orders": {"id": "int"}, "sales.returns": {"id": "int"}, "returns": {"x": "int"}}


def name_of(*parts: str) -> str | None:
    table = Catalog.from_mapping(SCHEMA).lookup(parts)
    return table.name if table is not None else None


def test_a_query_may_name_fewer_parts_than_the_schema() -> None:
    assert name_of("orders") == "shop.sales.orders"
    assert name_of("sales", "orders") == "shop.sales.orders"


def test_a_query_may_name_more_parts_than_the_schema() -> None:
    # dbt's compiled SQL names database.schema.table; the schema may say schema.table.
    assert name_of("prod", "sales", "returns") == "sales.returns"


def test_the_declared_name_agreeing_with_more_parts_wins() -> None:
    assert name_of("prod", "sales", "returns") == "sales.returns"  # not the bare 'returns'
    assert name_of("returns") == "returns"


def test_different_prefixes_do_not_match() -> None:
    assert name_of("other", "orders") is None


def test_two_declared_tables_with_the_name_are_ambiguous() -> None:
    catalog = Catalog.from_mapping({"a.t": {"x": "int"}, "b.t": {"y": "int"}})
    with pytest.raises(AmbiguousTableError, match="a.t and b.t"):
        catalog.lookup(("t",))
