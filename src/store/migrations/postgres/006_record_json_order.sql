-- A record's content keeps the key order its capability gave it, as the embedded store keeps it:
-- jsonb stores objects with their keys sorted (shortest first), so on PostgreSQL a result's `url`
-- came before its `title`. json keeps the text as written. Rows written before keep jsonb's order.
-- `actions` becomes json too: a cached action's detail is shown as well; it is now merged by a
-- read-modify-write under the row's lock (postgres.ts) instead of jsonb's `||`.
ALTER TABLE records
  ALTER COLUMN summary TYPE json USING summary::json,
  ALTER COLUMN ref TYPE json USING ref::json,
  ALTER COLUMN detail TYPE json USING detail::json,
  ALTER COLUMN links TYPE json USING links::json,
  ALTER COLUMN actions DROP DEFAULT,
  ALTER COLUMN actions TYPE json USING actions::json,
  ALTER COLUMN actions SET DEFAULT '{}'::json;
