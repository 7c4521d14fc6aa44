#!/usr/bin/env python3
"""Deferred-batch start latency of a built `leadhub` on an idle service.

Starts `leadhub serve` with one job worker that looks for jobs on its own only once a minute, so only a
wake-up explains a job started sooner; sends 20 deferred batches of one lead one by one, and times each
from sending the request until its job is claimed (`jobs.locked_by` set, read every millisecond). On
PostgreSQL the batches go to a process without workers and the job is claimed by another process's
worker (LISTEN/NOTIFY). Prints median and max per backend.

Usage: scripts/bench-wakeup.py [path/to/leadhub]   (default ${CARGO_TARGET_DIR:-target}/release/leadhub)
  BENCH_BACKENDS  "sqlite postgres" (default) or one of them
  BENCH_PG_URL    an admin URL (default postgres://postgres@127.0.0.1:5432/test); a fresh database, dropped
Needs psycopg 3 for PostgreSQL (scripts/requirements-test.txt).
"""
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import urllib.request

from bench_serve import prepare, serve

BATCHES = 20


def post(base, key, body):
    request = urllib.request.Request(f"{base}/api/v1/submissions/batch", json.dumps(body).encode(),
                                     {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def measure(binary, env, newest_claim, intake_workers):
    key = prepare(binary, env, "wake@example.com")
    worker_env = dict(env, LEADHUB_JOB_POLL_MS="60000")
    processes = []
    try:
        worker, base = serve(binary, dict(worker_env, LEADHUB_WORKERS="1"))
        processes.append(worker)
        if intake_workers is not None:
            intake, base = serve(binary, dict(env, LEADHUB_WORKERS=str(intake_workers)))
            processes.append(intake)
        # The worker's first look at start-up is over: from now on it sleeps unless woken.
        time.sleep(0.3)
        answered, claimed = [], []
        for n in range(BATCHES):
            body = {"leads": [{"address": f"{n} Wake St", "city": "Austin", "state": "TX", "zip_code": "78701"}],
                    "process_immediately": False}
            sent = time.perf_counter()
            assert post(base, key, body)["pending"] == 1
            answered.append((time.perf_counter() - sent) * 1e3)
            while newest_claim() is None:
                if time.perf_counter() - sent > 10:
                    raise SystemExit(f"job {n} never started")
                time.sleep(0.001)
            claimed.append((time.perf_counter() - sent) * 1e3)
            if not newest_claim().startswith(f"pid{worker.pid}-"):
                raise SystemExit("claimed by another process than the worker's")
        return answered, claimed
    finally:
        for p in processes:
            p.terminate()
            p.wait()


def summary(ms):
    return f"median {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "release", "leadhub"))
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("LEADHUB_", "DATABASE_URL"))}
    base_env.update(LEADHUB_GEOCODER="none", RUST_LOG="warn")
    for backend in os.environ.get("BENCH_BACKENDS", "sqlite postgres").split():
        with tempfile.TemporaryDirectory() as work:
            env = dict(base_env, LEADHUB_DATA_DIR=work)
            if backend == "sqlite":
                path = os.path.join(work, "leadhub.db")
                env["DATABASE_URL"] = f"sqlite://{path}"

                def newest_claim():
                    with sqlite3.connect(path) as db:
                        row = db.execute("SELECT locked_by FROM jobs ORDER BY id DESC LIMIT 1").fetchone()
                    return row and row[0]

                answered, claimed = measure(binary, env, newest_claim, None)
                label = "SQLite, one process"
            else:
                import psycopg

                admin = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432/test")
                name = f"lh_bench_wake_{os.getpid()}"
                url = admin.rsplit("/", 1)[0] + "/" + name
                with psycopg.connect(admin, autocommit=True) as conn:
                    conn.execute(f"CREATE DATABASE {name}")
                try:
                    env["DATABASE_URL"] = url
                    with psycopg.connect(url, autocommit=True) as db:

                        def newest_claim():
                            row = db.execute("SELECT locked_by FROM jobs ORDER BY id DESC LIMIT 1").fetchone()
                            return row and row[0]

                        answered, claimed = measure(binary, env, newest_claim, 0)
                finally:
                    with psycopg.connect(admin, autocommit=True) as conn:
                        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
                label = "PostgreSQL, queued by a process without workers, claimed by another's worker"
        print(f"{label}, {BATCHES} deferred batches of one lead: request sent -> answered {summary(answered)}; "
              f"-> job claimed {summary(claimed)}")


if __name__ == "__main__":
    main()
