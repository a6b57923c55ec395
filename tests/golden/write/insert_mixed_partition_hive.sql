-- dialect: hive
-- schema: partitioned.yaml
-- description: static and dynamic partitions: region is a constant (no source), d the last select item
INSERT OVERWRITE TABLE sales PARTITION (region = 'eu', d) SELECT id, amount, sold_on FROM src WHERE region = 'eu'
