-- dialect: duckdb
-- schema: shop.yaml
-- description: a DuckDB macro is inlined: SUM over the macro's expression is an aggregate of both arguments; a macro calling another is inlined through both
CREATE MACRO line_total(q, p) AS q * p;
CREATE MACRO with_tax(q, p) AS line_total(q, p) * 1.2;
SELECT order_id, SUM(with_tax(quantity, price)) AS total FROM order_items GROUP BY order_id;
