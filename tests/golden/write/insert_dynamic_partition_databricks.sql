-- dialect: databricks
-- schema: partitioned.yaml
-- description: INSERT INTO … PARTITION (region, d) with two dynamic partitions: the last two select items, in the PARTITION clause's order
INSERT INTO sales PARTITION (region, d) SELECT id, amount, region, sold_on FROM src
