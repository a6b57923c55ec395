-- dialect: snowflake
-- schema: {"orders": {"order_id": "int", "amount": "int"}, "db.s.totals": {"order_id": "int", "total": "int"}}
-- description: Snowflake's IDENTIFIER('name') with a string literal is that name — a table to read or write, a column (it was a FROM item not analysed, unknown, and SELECT IDENTIFIER('amount') a constant); IDENTIFIER($t) stays a FROM item not analysed (unknown, said: tests/sql/test_identifier_literal.py)
SELECT IDENTIFIER('amount') AS amount, o.order_id FROM IDENTIFIER('orders') AS o;
INSERT INTO IDENTIFIER('db.s.totals') SELECT order_id, amount FROM IDENTIFIER('orders')
