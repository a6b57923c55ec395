-- dialect: duckdb
-- schema: nested.yaml
-- description: an element chosen at run time: path items[]; the index column is read too
SELECT items[line_no].sku AS sku FROM orders
