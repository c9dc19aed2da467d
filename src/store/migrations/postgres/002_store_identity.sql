-- A random identity for this database's Quarry tables (one row, made by the store's migrate() under
-- the migration lock). Calls in doubt kept on disk (src/store/in-doubt.ts) carry it, so that a store
-- opened on another database leaves them on disk for a store of their own database instead of
-- asking this one about foreign transaction ids.
CREATE TABLE store_identity (
  id TEXT PRIMARY KEY,
  created_at BIGINT NOT NULL
);
