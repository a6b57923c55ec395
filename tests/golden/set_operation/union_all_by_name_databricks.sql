-- dialect: databricks
-- schema: shop.yaml
-- description: Databricks/Spark UNION ALL BY NAME (unionByName with allowMissingColumns): by name, a missing column NULL
SELECT customer_id, country FROM customers UNION ALL BY NAME SELECT customer_id FROM orders
