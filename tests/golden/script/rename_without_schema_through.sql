-- dialect: duckdb
-- schema: none
-- description: without a schema, a renamed table still reaches the table it was through the script (a column named through it is that table's, exactly); a column added to a table whose columns are unknown cannot be followed, said so
-- through-script: yes
ALTER TABLE staging RENAME TO staging_old;
ALTER TABLE staging_old ADD COLUMN loaded_at TIMESTAMP;
SELECT id, loaded_at FROM staging_old;
SELECT id FROM staging;
