-- dialect: postgres
-- schema: shop_writes.yaml
-- description: CREATE TABLE (LIKE t, more columns) declares t's columns and the new ones, with no rows; through the script a later read sees only what the INSERT wrote
-- through-script: yes
CREATE TEMP TABLE returns_copy (LIKE returns, noted_at timestamp);
INSERT INTO returns_copy (order_id, reason) SELECT order_id, status FROM orders WHERE status = 'returned';
SELECT order_id, product_id, reason, noted_at FROM returns_copy;
