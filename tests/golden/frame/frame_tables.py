"""Tables shared by the dataframe golden cases (``from frame_tables import orders, customers …``)."""

from prism_lineage.frame import table

SCHEMA = {
    "orders": {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "decimal(10, 2)",
               "placed_at": "timestamp"},
    "customers": {"customer_id": "int", "name": "varchar", "country": "varchar", "email": "varchar"},
    "baskets": {"basket_id": "int", "items": "struct(sku varchar, qty int)[]", "tags": "varchar[]",
                "attributes": "map(varchar, varchar)", "payload": "json", "owner": "struct(id int, address struct(city varchar, zip varchar))",
                "extra": None},
}

orders = table("orders", catalog=SCHEMA)
customers = table("customers", catalog=SCHEMA)
baskets = table("baskets", catalog=SCHEMA)
