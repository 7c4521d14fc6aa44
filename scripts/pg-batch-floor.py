#!/usr/bin/env python3
"""A PostgreSQL batch of 1000 leads over HTTP against its floor: a client inserting the same rows in one transaction.

The floor's rows are those leadhub writes for the batch of `cargo bench -p leadhub-tests --bench intake`
(INTAKE_BENCH=batch), whose elements this sends too: the batch row, 1000 leads (every column leadhub's INSERT
names, NULLs included) and 1000 submissions with the element's JSON verbatim and the lead's id. psycopg 3's
`executemany` sends each table's rows pipelined (one prepared statement, no wait per row). A built `leadhub
serve` on the same database (geocoder and rate limits off) takes the batches over HTTP, alternating with the
floor. Prints the medians and quartiles of 41 runs each, in ms, and their ratio.

Usage: scripts/pg-batch-floor.py [path/to/leadhub]   (default ${CARGO_TARGET_DIR:-target}/release/leadhub)
  BENCH_PG_URL  an admin URL (default postgres://postgres@127.0.0.1:5432/test); the run uses a fresh
                database, dropped afterwards
Needs psycopg 3 (scripts/requirements-test.txt).
"""
import datetime
import http.client
import json
import os
import secrets
import shutil
import statistics
import sys
import time

import psycopg

from bench_serve import prepare, serve

RUNS = 41
BATCH = 1000

LEAD_COLUMNS = (
    "team_id dedupe_scope street_key address_key address city state zip_code county first_name last_name "
    "primary_phone primary_phone_type phone_2 phone_3 phone_4 phone_5 email_1 email_2 email_3 mail_address "
    "mail_city mail_state mail_zip project_number permit_date permit_status parcel_number subdivision lot "
    "work_type project_description specific_use property_type lot_size lot_size_acres bedrooms related_url "
    "latitude longitude source source_identifier geocode_source geocode_match geocode_matched_address "
    "county_fips appraisal enrichment_status submission_count created_by created_at updated_at"
).split()
SUBMISSION_COLUMNS = (
    "batch_id batch_index user_id team_id raw_json status result_lead_id result_action validation_warnings "
    "processed_at created_at idempotency_key_id"
).split()


def insert_sql(table, columns, returning=""):
    marks = ", ".join(["%s"] * len(columns))
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}){returning}"


def element(run, i):
    # The bench's element (tests/bench/intake.rs, `lead`), as the client sends it.
    return {
        "address": f"{10_000 + run * BATCH + i} Oak Hollow Dr", "city": "Austin", "state": "TX",
        "zip_code": "78704", "first_name": "Pat", "last_name": "Lee", "primary_phone": "512-555-0100",
        "email_1": "pat@example.com", "permit_date": "01/05/2025", "lot_size": "0.25 acres",
        "property_type": "residential", "source": "permit_scrape", "latitude": 30.25, "longitude": -97.76,
    }


def lead_row(e, user_id, now):
    number = e["address"].split()[0]
    values = dict.fromkeys(LEAD_COLUMNS)
    values.update(
        dedupe_scope=0, street_key=f"{number} OAK HOLLOW DR", address_key=f"{number} OAK HOLLOW DR|78704",
        address=e["address"], city="Austin", state="TX", zip_code="78704", first_name="Pat", last_name="Lee",
        primary_phone="+15125550100", email_1="pat@example.com", permit_date="2025-01-05",
        lot_size="0.25 acres", lot_size_acres=0.25, property_type="residential", source="permit_scrape",
        latitude=30.25, longitude=-97.76, enrichment_status="skipped", submission_count=1,
        created_by=user_id, created_at=now, updated_at=now,
    )
    return tuple(values[c] for c in LEAD_COLUMNS)


def one_batch(conn, run, user_id):
    elements = [element(run, i) for i in range(BATCH)]
    raw = [json.dumps(e, separators=(",", ":")) for e in elements]
    started = time.perf_counter()
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    batch_id = "bat_" + secrets.token_hex(12)
    with conn.transaction(), conn.cursor() as cur:
        cur.execute(
            "INSERT INTO batches (id, user_id, team_id, total, process_immediately, created_at, completed_at) "
            "VALUES (%s, %s, NULL, %s, true, %s, %s)", (batch_id, user_id, BATCH, now, now))
        cur.executemany(insert_sql("leads", LEAD_COLUMNS, " RETURNING id"),
                        [lead_row(e, user_id, now) for e in elements], returning=True)
        lead_ids = []
        while True:
            lead_ids.append(cur.fetchone()[0])
            if not cur.nextset():
                break
        cur.executemany(insert_sql("submissions", SUBMISSION_COLUMNS), [
            (batch_id, i, user_id, None, raw[i], "completed", lead_ids[i], "created", "[]", now, now, None)
            for i in range(BATCH)
        ])
    return (time.perf_counter() - started) * 1000


def http_batch(base, key, run):
    body = json.dumps({"leads": [element(run, i) for i in range(BATCH)]}).encode()
    connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=60)
    started = time.perf_counter()
    connection.request("POST", "/api/v1/submissions/batch", body,
                       {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    answer = connection.getresponse()
    result = json.loads(answer.read())
    elapsed = (time.perf_counter() - started) * 1000
    connection.close()
    assert answer.status == 200 and result["succeeded"] == BATCH, result
    return elapsed


def cpu_seconds(pid):
    """User + system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def quartiles(times):
    q1, median, q3 = statistics.quantiles(times, n=4)
    return f"median {median:.1f} ms (quartiles {q1:.1f}-{q3:.1f})", median


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "release", "leadhub"))
    admin = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432/test")
    name = f"lh_pg_floor_{os.getpid()}"
    url = admin.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    server = None
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LEADHUB_", "DATABASE_URL"))}
        env.update(DATABASE_URL=url, LEADHUB_GEOCODER="none", RUST_LOG="warn", LEADHUB_RATE_LIMIT_PER_KEY_HOUR="0",
                   LEADHUB_RATE_LIMIT_PER_IP_MINUTE="0", LEADHUB_DATA_DIR=f"/tmp/{name}")
        key = prepare(binary, env, "floor@example.com")
        server, base = serve(binary, env)
        floor, over_http = [], []
        with psycopg.connect(url) as conn:
            user_id = conn.execute("SELECT id FROM users WHERE email = 'floor@example.com'").fetchone()[0]
            conn.commit()
            cpu_before = cpu_seconds(server.pid)
            for run in range(RUNS):
                over_http.append(http_batch(base, key, run))
                floor.append(one_batch(conn, 1000 + run, user_id))
            server_cpu = (cpu_seconds(server.pid) - cpu_before) / RUNS * 1000
            leads = conn.execute("SELECT count(*) FROM leads").fetchone()[0]
        assert leads == 2 * RUNS * BATCH, leads
        http_text, http_median = quartiles(over_http)
        floor_text, floor_median = quartiles(floor)
        print(f"PostgreSQL, {RUNS} runs alternating: batch of {BATCH} over HTTP {http_text}; the same rows "
              f"(1 batch, {BATCH} leads, {BATCH} submissions) in one transaction with psycopg "
              f"{psycopg.__version__} executemany {floor_text}; ratio {http_median / floor_median:.2f}x; leadhub's CPU "
              f"(user + system) {server_cpu:.1f} ms per batch")
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        shutil.rmtree(f"/tmp/{name}", ignore_errors=True)


if __name__ == "__main__":
    main()
