-- dialect: databricks
-- schema: shop_writes.yaml
-- description: Databricks' UPDATE SET * / INSERT *: every target column from the source column of the same name
MERGE INTO customers t USING customers_staging s ON t.customer_id = s.customer_id
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *
