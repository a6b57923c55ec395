-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB struct literals and struct_pack: a field read by name (dot, bracket, any case) out of a constructor that names it is that field's expression, also two levels deep
SELECT
  {'id': order_id, 'total': amount}.id AS id,
  {'id': order_id, 'total': amount}['TOTAL'] AS total,
  struct_pack(s := status, c := customer_id).c AS customer,
  {'outer': {'inner': amount * 2, 'other': status}, 'k': order_id}.outer.inner AS doubled
FROM orders
