-- dialect: snowflake
-- schema: governed.yaml
-- description: a masked column is read through its mask (transformation mask) with policy lineage from what the mask reads
SELECT customer_id, email FROM customers
