-- dialect: postgres
-- schema: shop.yaml
-- description: two functions of the same name the arguments cannot tell apart (overloads by type): the call is unknown, said; the one with two parameters is inlined
CREATE FUNCTION fmt(v bigint) RETURNS varchar LANGUAGE sql RETURN v::varchar;
CREATE FUNCTION fmt(v varchar) RETURNS varchar LANGUAGE sql RETURN upper(v);
CREATE FUNCTION fmt(v varchar, w varchar) RETURNS varchar LANGUAGE sql RETURN v || '-' || w;
SELECT fmt(customer_id) AS id_text, fmt(name, country) AS pair FROM customers;
