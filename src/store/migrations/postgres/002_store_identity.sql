-- A random identity for this database's Quarry tables, written once. Calls in doubt kept on disk
-- (src/store/in-doubt.ts) carry it, so that a store opened on another database leaves them on disk
-- for a store of their own database instead of asking this one about foreign transaction ids.
CREATE TABLE store_identity (
  id TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL
);

INSERT INTO store_identity (id, created_at)
  VALUES (gen_random_uuid()::text, (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint);
