#!/usr/bin/env python3
"""Python baseline for storage_bench: the same batched metric upserts, through Python's sqlite3
module (executemany), into an existing deepladder database (the current schema, created by the
C++ side so both write the very same schema) with the same connection settings as
storage/database.cpp. Rows are built per batch outside the timed region, with their key names, as
on the C++ side; inside it, as a Python user of this schema would, the names are mapped to their
metric_keys ids with a dict (a name not seen before is inserted into metric_keys), then the rows
are upserted. The C++ side also keeps the metric pyramid up to date; this baseline does not.
Prints one line: rows=N seconds=S rows_per_s=R cpu_seconds=C cpu_rows_per_s=Q

With --read PATH RUN READS: reads run RUN's whole train/loss curve READS times (the SELECT of
Database::readMetric, rows fetched into a list, 20 ms apart as on the C++ side) and prints
points=P reads=N median=MS max=MS (wall milliseconds per read).
"""
import sqlite3
import sys
import time

KEYS = ["train/loss", "lr", "grad_norm", "tokens_per_s"]
STEPS_PER_RUN = 100_000  # so each run holds len(KEYS) * 100,000 rows


def batch_rows(first, count):
    rows = []
    for i in range(first, first + count):
        run = 1 + i // (STEPS_PER_RUN * len(KEYS))
        k = i % len(KEYS)
        step = (i // len(KEYS)) % STEPS_PER_RUN
        rows.append((run, KEYS[k], step, step * 512, step * 512 * 6.0e6,
                     1.0 / (1.0 + step) + 0.001 * k, 0.01 * step))
    return rows


def read_curve(path, run, reads):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    con.execute("PRAGMA cache_size = -65536")
    con.execute("PRAGMA mmap_size = 268435456")
    sql = ("SELECT step, tokens, flops, value, wall FROM metrics WHERE run_id = ? "
           "AND key_id = (SELECT id FROM metric_keys WHERE name = ?) ORDER BY step")
    ms, points = [], 0
    for _ in range(reads):
        t0 = time.perf_counter()
        points = len(con.execute(sql, (run, "train/loss")).fetchall())
        ms.append(1000 * (time.perf_counter() - t0))
        time.sleep(0.02)
    con.close()
    ms.sort()
    print(f"points={points} reads={reads} median={ms[len(ms) // 2]:.2f} max={ms[-1]:.2f}")


def main():
    if sys.argv[1] == "--read":
        read_curve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    path, n_rows, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    con = sqlite3.connect(path, isolation_level=None)  # explicit BEGIN/COMMIT below
    con.execute("PRAGMA busy_timeout = 10000")
    con.execute("PRAGMA foreign_keys = ON")
    con.execute("PRAGMA cache_size = -65536")
    con.execute("PRAGMA temp_store = MEMORY")
    con.execute("PRAGMA mmap_size = 268435456")
    assert con.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    con.execute("PRAGMA synchronous = NORMAL")
    sql = ("INSERT INTO metrics(run_id, key_id, step, tokens, flops, value, wall) "
           "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, key_id, step) DO UPDATE SET "
           "tokens = excluded.tokens, flops = excluded.flops, value = excluded.value, "
           "wall = excluded.wall")
    key_ids = dict(con.execute("SELECT name, id FROM metric_keys"))
    timed = 0.0
    timed_cpu = 0.0  # this process's CPU time: robust when other jobs share the cores
    for first in range(0, n_rows, batch):
        rows = batch_rows(first, min(batch, n_rows - first))
        t0, c0 = time.perf_counter(), time.process_time()
        con.execute("BEGIN IMMEDIATE")
        for name in {row[1] for row in rows}:
            if name not in key_ids:
                key_ids[name] = con.execute("INSERT INTO metric_keys(name) VALUES (?)",
                                            (name,)).lastrowid
        con.executemany(sql, [(r, key_ids[k], s, t, f, v, w) for r, k, s, t, f, v, w in rows])
        con.execute("COMMIT")
        timed += time.perf_counter() - t0
        timed_cpu += time.process_time() - c0
    count = con.execute("SELECT count(*) FROM metrics").fetchone()[0]
    assert count == n_rows, (count, n_rows)
    # Closing checkpoints what the write-ahead log still holds (timed, as on the C++ side).
    t0, c0 = time.perf_counter(), time.process_time()
    con.close()
    timed += time.perf_counter() - t0
    timed_cpu += time.process_time() - c0
    print(f"rows={n_rows} seconds={timed:.4f} rows_per_s={n_rows / timed:.0f} "
          f"cpu_seconds={timed_cpu:.4f} cpu_rows_per_s={n_rows / timed_cpu:.0f}")


if __name__ == "__main__":
    main()
