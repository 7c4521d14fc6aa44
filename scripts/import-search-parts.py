#!/usr/bin/env python3
"""What each part of the lead search costs an import (docs/search.md, "What it costs at write time").

  import-search-parts.py LEADHUB CSV ROUNDS [SET,SET...]

Imports CSV (`leadhub import leads`, geocoder none) into a fresh SQLite database per run, with the named set of search
parts dropped first, the sets alternating in ABBA order round by round; prints each run's rows/s, then each set's
median and range. A measurement, not a way to run the service: a dropped part leaves its filter, sort or `q` to a scan.
LEADHUB is a release build (`cargo build --profile bench -p leadhub-web --bin leadhub --example make_leads_csv`),
CSV one `make_leads_csv 100000 leads.csv` wrote. Needs sqlean.py (pip install sqlean.py==3.50.4.5).
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import sqlean as sqlite3
except ImportError:
    sys.exit("import-search-parts: needs sqlean.py (pip install sqlean.py==3.50.4.5)")

TRIGGERS = ["lead_search_insert", "lead_search_update", "lead_search_delete"]
SETS = {
    "shipped": [],
    "no_word_index": TRIGGERS,
    "no_update_trigger": ["lead_search_update"],
    "no_updated_index": ["leads_updated"],
    "no_search": TRIGGERS + ["leads_updated"],
}


def run(leadhub: str, csv: str, parts: list) -> float:
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, LEADHUB_DATA_DIR=work, LEADHUB_GEOCODER="none", RUST_LOG="warn")
        subprocess.run([leadhub, "user", "add", "--email", "bench@example.com", "--admin"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        conn = sqlite3.connect(os.path.join(work, "leadhub.db"), isolation_level=None)
        for name in parts:
            row = conn.execute("SELECT type FROM sqlite_schema WHERE name = ?", (name,)).fetchone()
            if row is None:
                sys.exit(f"import-search-parts: the schema has no {name}")
            conn.execute(f"DROP {row[0].upper()} {name}")
        conn.close()
        started = time.monotonic()
        summary = subprocess.run([leadhub, "import", "leads", csv], env=env, check=True, capture_output=True,
                                 text=True).stdout
        created = int(re.search(r"^created: (\d+)$", summary, re.MULTILINE).group(1))
        return created / (time.monotonic() - started)


def main() -> None:
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    leadhub, csv, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    names = sys.argv[4].split(",") if len(sys.argv) == 5 else list(SETS)
    unknown = [n for n in names if n not in SETS]
    if unknown:
        sys.exit(f"import-search-parts: no set {unknown}; the sets: {', '.join(SETS)}")
    figures = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else list(reversed(names)):
            figures[name].append(run(leadhub, csv, SETS[name]))
            print(f"round {r} {name:24s} {figures[name][-1]:8.0f} rows/s", flush=True)
    for name, rates in figures.items():
        print(f"{name:24s} median {statistics.median(rates):8.0f} rows/s, range {min(rates):.0f}-{max(rates):.0f}")


if __name__ == "__main__":
    main()
