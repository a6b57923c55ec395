-- dialect: bigquery
-- schema: nested.yaml
-- description: struct fields, with and without the table alias: exact (the struct type is declared), the path beside the column
SELECT customer.name, o.customer.address.city FROM orders AS o
