#!/usr/bin/env python3
"""Python baseline for tb_import_bench: the same TensorBoard log directory imported by a Python
loop: every event file read with the independent reader of the tests (tests/app/tb_events.py:
TFRecord framing with both CRC-32Cs checked, the Event protos decoded, in Python), tags mapped to
the same metric keys, and the same rows written with python3's sqlite3 (executemany, one
transaction) into an empty deepladder database created by the C++ side (the same schema and
connection settings as storage/database.cpp; rows' tokens and FLOPs in proportion to their step,
as `deepladder import` does). It keeps no metric pyramid; the C++ import does.
Usage: tb_import_bench_python.py LOGDIR DB
Prints one line: runs=N rows=R seconds=S cpu_seconds=C
"""
import json
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app"))
import tb_events  # noqa: E402

KEY_OF_TAG = {"loss": "train/loss", "eval/loss": "val/loss", "learning_rate": "lr"}


def main():
    logdir, path = sys.argv[1], sys.argv[2]
    t0, c0 = time.perf_counter(), time.process_time()
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA busy_timeout = 10000")
    con.execute("PRAGMA foreign_keys = ON")
    con.execute("PRAGMA cache_size = -65536")
    con.execute("PRAGMA temp_store = MEMORY")
    con.execute("PRAGMA mmap_size = 268435456")
    assert con.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    con.execute("PRAGMA synchronous = NORMAL")
    con.execute("BEGIN IMMEDIATE")
    ladder = con.execute("INSERT INTO ladders(name, spec, hash) VALUES ('py', '#', 'py')").lastrowid
    key_ids = dict(con.execute("SELECT name, id FROM metric_keys"))
    insert = ("INSERT INTO metrics(run_id, key_id, step, tokens, flops, value, wall) "
              "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, key_id, step) DO UPDATE SET "
              "tokens = excluded.tokens, flops = excluded.flops, value = excluded.value, "
              "wall = excluded.wall")
    total = runs = 0
    for name in sorted(os.listdir(logdir)):
        run_dir = os.path.join(logdir, name)
        curves = {}
        for f in sorted(os.listdir(run_dir)):
            if f.startswith("events.out.tfevents."):
                tb_events.read_events(
                    os.path.join(run_dir, f), {},
                    lambda t, s, v, w: curves.setdefault(KEY_OF_TAG.get(t, t), {}).__setitem__(
                        s, (v, w)), {})
        with open(os.path.join(run_dir, "config.json")) as cf:
            options = json.load(cf)
        last_step = max(max(c) for c in curves.values())
        final = curves["val/loss"][max(curves["val/loss"])][0]
        run_id = con.execute(
            "INSERT INTO runs(ladder_id, name, arm, size, config, status, flops, tokens, "
            "final_loss, step) VALUES (?, ?, ?, ?, ?, 'finished', ?, ?, ?, ?)",
            (ladder, name, options["arm"], options["size"], json.dumps(options), options["flops"],
             options["tokens"], final, last_step)).lastrowid
        rows = []
        for key, points in curves.items():
            if key not in key_ids:
                key_ids[key] = con.execute("INSERT INTO metric_keys(name) VALUES (?)",
                                           (key,)).lastrowid
            k = key_ids[key]
            for step in sorted(points):
                value, wall = points[step]
                fraction = step / last_step
                rows.append((run_id, k, step, round(options["tokens"] * fraction),
                             options["flops"] * fraction, value, wall))
        con.executemany(insert, rows)
        total += len(rows)
        runs += 1
    con.execute("COMMIT")
    con.close()
    print(f"runs={runs} rows={total} seconds={time.perf_counter() - t0:.3f} "
          f"cpu_seconds={time.process_time() - c0:.3f}")


if __name__ == "__main__":
    main()
