#!/usr/bin/env python3
"""The fastest an import can keep the lead search as designed: built once after the rows, instead of per row.

`scripts/bench-import.sh` runs this around `leadhub import leads` when BENCH_IMPORT_SEARCH=after:

  import-search-after.py drop  DB   before the import: drops the search's parts (the triggers that keep
                                    the word index `lead_search`, made by the baseline migration, and the sort index
                                    `leads_updated`), keeping their SQL beside the database
  import-search-after.py build DB   after it: creates them again and fills `lead_search` for every lead in
                                    one statement, in one transaction; prints the seconds each part took

This is a measurement, not a way to run the service: while the parts are dropped, the lead list scans and
`q` misses the new leads (docs/search.md, "What it costs at write time"). Needs a SQLite with FTS5's
`contentless_delete` (3.43 or later): `pip install sqlean.py==3.50.4.5`.
"""
import json
import pathlib
import sys
import time

try:
    import sqlean as sqlite3
except ImportError:
    sys.exit("import-search-after: needs sqlean.py (pip install sqlean.py==3.50.4.5)")

# What the search added to `leads` (docs/search.md; the same list as `SEARCH_PARTS` in tests/bench/intake.rs); the
# import needs none of them.
SEARCH_INDEXES = ["leads_updated"]
SEARCH_TRIGGERS = ["lead_search_insert", "lead_search_update", "lead_search_delete"]


def saved_path(db: str) -> pathlib.Path:
    return pathlib.Path(db).with_name("search-parts.json")


def drop(conn, db: str) -> None:
    parts = {}
    for name in SEARCH_INDEXES + SEARCH_TRIGGERS:
        row = conn.execute("SELECT type, sql FROM sqlite_schema WHERE name = ?", (name,)).fetchone()
        if row is None:
            sys.exit(f"import-search-after: the schema has no {name}: update SEARCH_INDEXES or SEARCH_TRIGGERS")
        parts[name] = row[1]
        conn.execute(f"DROP {row[0].upper()} {name}")
    saved_path(db).write_text(json.dumps(parts))


def fill_statement(insert_trigger_sql: str) -> str:
    """The insert trigger's INSERT of one lead's row of `lead_search_rows`, for every lead."""
    start = insert_trigger_sql.index("INSERT INTO lead_search")
    return insert_trigger_sql[start:insert_trigger_sql.index(" WHERE id = new.id")]


def build(conn, db: str) -> None:
    parts = json.loads(saved_path(db).read_text())
    started = time.monotonic()
    conn.execute("BEGIN IMMEDIATE")
    for name in SEARCH_INDEXES:
        conn.execute(parts[name])
    indexed = time.monotonic()
    for name in SEARCH_TRIGGERS:
        conn.execute(parts[name])
    conn.execute(fill_statement(parts["lead_search_insert"]))
    filled = time.monotonic()
    conn.execute("COMMIT")
    print(f"search_build_s={time.monotonic() - started:.2f} indexes_s={indexed - started:.2f} "
          f"fts_fill_s={filled - indexed:.2f}")


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in ("drop", "build"):
        sys.exit("usage: import-search-after.py drop|build DB")
    action, db = sys.argv[1], sys.argv[2]
    conn = sqlite3.connect(db, isolation_level=None)
    # As leadhub's own connections (db/src/pool/connection.rs).
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA temp_store = MEMORY")
    (drop if action == "drop" else build)(conn, db)
    conn.close()


if __name__ == "__main__":
    main()
