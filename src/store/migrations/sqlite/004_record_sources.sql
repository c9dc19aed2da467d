-- A page's source: the provider's body a page of records was mapped from, kept on the page's first
-- record (`source`) and pointed at by every record of the page (`source_at`, a position in the
-- same session). Capabilities with stored details that map them from the source (recipes.search)
-- no longer build and write the mapped detail at search time; `details` maps it on read. Records
-- written before keep their `detail`. The source goes with its record: sweeps and undos delete
-- records, and with them their sources.
ALTER TABLE records ADD COLUMN source_at INTEGER;
ALTER TABLE records ADD COLUMN source TEXT;
