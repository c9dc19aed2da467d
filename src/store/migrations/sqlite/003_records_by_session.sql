-- A session's records are stored under row ids made from the session's own integer key and the
-- record's position: slot = sessions.seq * 1048576 + position. A session's records are then
-- adjacent in the table, new sessions' records go at its end, and reading a page of a session is a
-- row-id range. That replaces the records(search_id, position) index, whose leaf for a random
-- search id was one of the ~5 pages each execute wrote to the WAL (docs/reliability.md).
--
-- sessions.seq is AUTOINCREMENT so a number is never given twice, and explicit so VACUUM cannot
-- renumber it. Records no longer reference sessions by a foreign key (its cascade would scan the
-- table without the index): the writer deletes a session's records with it, and every read also
-- checks records.search_id.

CREATE TABLE sessions_by_seq (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  capability TEXT NOT NULL,
  query TEXT NOT NULL,
  state TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

INSERT INTO sessions_by_seq (id, account_id, capability, query, state, expires_at, created_at)
  SELECT id, account_id, capability, query, state, expires_at, created_at FROM sessions ORDER BY created_at, id;

CREATE TABLE records_by_slot (
  slot INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  search_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  position INTEGER NOT NULL CHECK (position >= 0 AND position < 1048576),
  summary TEXT NOT NULL,
  ref TEXT,
  detail TEXT,
  links TEXT,
  actions TEXT NOT NULL DEFAULT '{}'
) STRICT;

INSERT INTO records_by_slot (slot, id, search_id, account_id, position, summary, ref, detail, links, actions)
  SELECT s.seq * 1048576 + r.position, r.id, r.search_id, r.account_id, r.position, r.summary, r.ref, r.detail,
    r.links, r.actions
  FROM records r JOIN sessions_by_seq s ON s.id = r.search_id;

DROP TABLE records;
DROP TABLE sessions;
ALTER TABLE sessions_by_seq RENAME TO sessions;
ALTER TABLE records_by_slot RENAME TO records;
CREATE INDEX sessions_expires ON sessions (expires_at);
