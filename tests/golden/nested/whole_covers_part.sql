-- dialect: trino
-- schema: nested.yaml
-- description: a column read whole covers its parts read in the same field
SELECT CASE WHEN customer.address.city = 'Utrecht' THEN customer END AS local_customer FROM orders
