-- A page's source: the provider's body a page of records was mapped from, kept on the page's first
-- record (`source`) and pointed at by every record of the page (`source_at`, a position in the
-- same session); see the SQLite migration 004 of the same name. Deleted with its record.
ALTER TABLE records ADD COLUMN source_at BIGINT, ADD COLUMN source TEXT;
