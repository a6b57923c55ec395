-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: a procedure whose body is JavaScript is not read: said on its answer, never an empty answer with nothing uncertain
CREATE OR REPLACE PROCEDURE js_refresh() RETURNS VARCHAR LANGUAGE JAVASCRIPT AS $$
  snowflake.execute({sqlText: "DELETE FROM customer_totals"});
  return "ok";
$$;
