-- dialect: hive
-- schema: none
-- description: a dynamic partition into a table not in the schema: the last select item is written to the partition column d
INSERT OVERWRITE TABLE sales_by_day PARTITION (d) SELECT region, amount, sold_on FROM src
