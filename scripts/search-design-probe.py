#!/usr/bin/env python3
"""A search design not built, measured (docs/search.md, "What it costs at write time"): on SQLite, one word-tokenised
FTS5 table whose text carries the lead's words, phone digits and one token per filter value, in place of the
trigram FTS5 and the filter indexes.

  search-design-probe.py import LEADHUB CSV   `leadhub import leads` of CSV into a fresh database whose search parts
                                              are replaced by the probe's table and insert trigger; prints rows/s
  search-design-probe.py reads                1,000,000 synthetic documents written in commits of 500, then the
                                              median of 5 counts and first pages of filter pairs, a word, a phone

Compare the import with `scripts/bench-import.sh` on the commit before the search (b7c428d), alternating. Needs
sqlean.py (pip install sqlean.py==3.50.4.5) and scripts/import-search-after.py beside this file.
"""
import os
import pathlib
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import sqlean as sqlite3
except ImportError:
    sys.exit("search-design-probe: needs sqlean.py (pip install sqlean.py==3.50.4.5)")

HERE = pathlib.Path(__file__).resolve().parent
FILTERS = ["state", "source", "permit_status", "property_type", "city", "county", "work_type"]


def digits(column: str) -> str:
    inner = f"new.{column}"
    for ch in ["+", "-", " ", "(", ")", "."]:
        inner = f"replace({inner}, '{ch}', '')"
    return f"coalesce({inner}, '')"


def probe_trigger() -> str:
    words = [f"coalesce(new.{c}, '')" for c in
             ["address", "first_name", "last_name", "project_number", "email_1", "email_2", "email_3"]]
    phones = [digits(c) for c in ["primary_phone", "phone_2", "phone_3", "phone_4", "phone_5"]]
    # f0 state, f1 source, ...: one token per value, its spaces dropped; the team for visibility.
    tokens = [f"'f{i}' || replace(lower(coalesce(new.{c}, '')), ' ', '')" for i, c in enumerate(FILTERS)]
    tokens += ["'z' || substr(coalesce(new.zip_code, ''), 1, 5)", "'t' || coalesce(new.team_id, 0)"]
    doc = " || ' ' || ".join(words + phones + tokens)
    return f"CREATE TRIGGER probe_search_insert AFTER INSERT ON leads BEGIN " \
           f"INSERT INTO probe_search(rowid, doc) VALUES (new.id, {doc}); END"


def probe_import(leadhub: str, csv: str) -> None:
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, LEADHUB_DATA_DIR=work, LEADHUB_GEOCODER="none", RUST_LOG="warn")
        subprocess.run([leadhub, "user", "add", "--email", "probe@example.com", "--admin"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        db = os.path.join(work, "leadhub.db")
        subprocess.run([sys.executable, str(HERE / "import-search-after.py"), "drop", db], check=True)
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("CREATE VIRTUAL TABLE probe_search USING fts5(doc, content = '', contentless_delete = 1)")
        conn.execute(probe_trigger())
        started = time.monotonic()
        summary = subprocess.run([leadhub, "import", "leads", csv], env=env, check=True, capture_output=True,
                                 text=True).stdout
        secs = time.monotonic() - started
        created = int(re.search(r"^created: (\d+)$", summary, re.MULTILINE).group(1))
        # Every lead is in the probe's index: as many match their state's token as the table holds.
        for state, leads in conn.execute("SELECT lower(state), count(*) FROM leads WHERE state IS NOT NULL GROUP BY 1").fetchall():
            found = conn.execute("SELECT count(*) FROM probe_search WHERE probe_search MATCH ?",
                                 (f"f0{state}",)).fetchone()[0]
            if found != leads:
                sys.exit(f"search-design-probe: {leads} leads in {state}, {found} in the probe's index")
        conn.close()
        print(f"probe import: {created} leads created in {secs:.2f} s, {created / secs:.0f} rows/s")


def probe_reads() -> None:
    rng = random.Random(7)
    def pick(weighted):
        values, weights = zip(*weighted)
        return rng.choices(values, weights)[0]

    states = [("tx", 50), ("ca", 15), ("fl", 10), ("ny", 8), ("ga", 5), ("az", 4), ("co", 3), ("wa", 5)]
    sources = [("permitscrape", 60), ("referral", 20), ("webform", 12), ("callcenter", 8)]
    statuses = [("approved", 40), ("issued", 25), ("inreview", 20), ("pending", 10), ("expired", 5)]
    types = [("residential", 80), ("commercial", 15), ("agricultural", 3), ("vacantland", 2)]
    streets = ["main", "oak", "elm", "lamar", "cedar", "pine", "park", "lake"] * 3 + [f"w{i}" for i in range(3000)]
    with tempfile.TemporaryDirectory() as work:
        conn = sqlite3.connect(os.path.join(work, "probe.db"), isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE VIRTUAL TABLE s USING fts5(doc, content = '', contentless_delete = 1)")
        for start in range(1, 1_000_001, 500):
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO s(rowid, doc) VALUES (?, ?)", [(i, " ".join([
                str(rng.randint(1, 9999)), rng.choice(streets), "st", f"first{rng.randint(1, 500)}",
                f"last{rng.randint(1, 3000)}", f"bp{i:07d}", f"1512555{rng.randint(0, 9999):04d}", f"p{i} example com",
                "f0" + pick(states), "f1" + pick(sources), "f2" + pick(statuses), "f3" + pick(types),
                f"f4c{int(rng.paretovariate(1.2))}", f"z{rng.randint(70000, 71999)}", f"t{rng.randint(0, 10)}",
            ])) for i in range(start, start + 500)])
            conn.execute("COMMIT")
        for query in ["f0tx AND f1permitscrape", "f1permitscrape AND f3residential", "f4c1 AND f2approved",
                      "(t0 OR t3) AND f0tx AND f1permitscrape", "lamar AND (t0 OR t3)", "15125551234",
                      '"p123 example com"']:
            counts, pages = [], []
            for _ in range(5):
                t = time.perf_counter()
                n = conn.execute("SELECT count(*) FROM s WHERE s MATCH ?", (query,)).fetchone()[0]
                counts.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                conn.execute("SELECT rowid FROM s WHERE s MATCH ? ORDER BY rowid DESC LIMIT 50", (query,)).fetchall()
                pages.append((time.perf_counter() - t) * 1000)
            print(f"probe reads: {query:42s} {n:7d} matches, count {statistics.median(counts):5.1f} ms, "
                  f"first page {statistics.median(pages):4.1f} ms")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "import":
        probe_import(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2 and sys.argv[1] == "reads":
        probe_reads()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
