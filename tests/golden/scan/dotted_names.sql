-- dialect: postgres
-- schema: warehouse_dotted.yaml
-- description: a partial name (sales.orders) matches the dotted schema name by suffix; answers use the full name
SELECT o.amount, c.name FROM sales.orders AS o JOIN crm.customers AS c ON c.customer_id = o.customer_id
