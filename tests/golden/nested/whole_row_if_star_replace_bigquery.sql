-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery: IF(cond, c, NULL).* REPLACE (...) is one field per column of c, each the same choice over that column; the replaced one is its new value
SELECT IF(c.segment = 'vip', c, NULL).* EXCEPT (country) REPLACE ('hidden' AS name) FROM customers AS c
