-- dialect: postgres
-- schema: governed.yaml
-- description: a masking policy declared without its expression: the column is masked, nothing else is known to be read
SELECT UPPER(name) AS name FROM customers
