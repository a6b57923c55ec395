-- dialect: snowflake
-- schema: shop.yaml
-- description: Snowflake upper-cases unquoted identifiers (output names too); a quoted one keeps its case; answers spell columns as the schema does
SELECT Customer_Id, "amount" FROM Orders
