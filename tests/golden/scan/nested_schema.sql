-- dialect: bigquery
-- schema: warehouse_nested.yaml
-- description: nested schema under tables:, one table with a columns: spec; a fully qualified column name
SELECT orders.amount, customer_id FROM proj.sales.orders
