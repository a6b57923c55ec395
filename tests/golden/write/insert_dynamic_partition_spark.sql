-- dialect: spark
-- schema: partitioned.yaml
-- description: INSERT OVERWRITE … PARTITION (d): the dynamic partition column is the last select item, wherever the schema lists it (d from sold_on, region from region)
INSERT OVERWRITE TABLE sales PARTITION (d) SELECT id, amount, region, sold_on FROM src
