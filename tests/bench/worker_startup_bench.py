#!/usr/bin/env python3
"""Worker start-up benchmark: time from launching deepladder-worker to its hello line (the first
protocol message on stdout), side by side in one run, alternating launches so that background
load hits each alike. A tiny text run (d32, one layer) is trained to its hello only: the worker
is killed once it said hello. Rows:
  cold, re-exec      OLD (--old-worker) with OMP_WAIT_POLICY unset: a worker that re-executes
                     itself to set the variable (as main had before the scheduler set it)
  cold               WORKER as the scheduler launches it (OMP_WAIT_POLICY=PASSIVE set)
  standby            WORKER --standby, pre-started and ready: from writing the run assignment on
                     its stdin to its hello (what a run dispatched to a warm slot waits)
  standby_ready      WORKER --standby from launch to its ready line (paid while the slot is busy)
Then the cold launch's phases (DEEPLADDER_STARTUP_TRACE: libraries loaded and initialized, main,
trainer entered, hello; ms since launch) and the OpenMP wait policy libgomp took
(OMP_DISPLAY_ENV=VERBOSE) per row.
Usage: worker_startup_bench.py WORKER [--old-worker OLD] [--runs N]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# The assignment line of core/worker_assignment.h and the standby's ready line.
READY = b'{"standby":"ready"}'


def tiny_run(directory):
    text = "".join(f"the quick brown fox jumps over the lazy dog {i % 7}\n" for i in range(400))
    with open(os.path.join(directory, "train.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(directory, "val.txt"), "w") as f:
        f.write(text[:4000])
    config = os.path.join(directory, "run.toml")
    with open(config, "w") as f:
        f.write(f'name = "startup"\n[model]\nd_model = 32\nn_layer = 1\nn_head = 2\nseq_len = 32\n'
                f'[data]\nkind = "text"\ntrain = "{directory}/train.txt"\n'
                f'val = "{directory}/val.txt"\nmax_epochs = 100\n[train]\nsteps = 1000\nwarmup_steps = 2\n'
                f'batch_size = 4\neval_every = 1000\neval_batches = 2\nthreads = 1\n')
    return config


def environment(policy, extra=None):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    env.update(extra or {})
    return env


def run_args(config, workdir):
    return ["--config", config, "--workdir", workdir, "--run-id", "1"]


def until_hello(p, start):
    for line in p.stdout:
        if b'"hello"' in line:
            return time.perf_counter() - start
    return None


def cold(worker, config, workdir, policy, trace=None):
    """Launch-to-hello seconds; with trace, also the worker's startup phases (ms)."""
    extra = {"DEEPLADDER_STARTUP_TRACE": repr(time.time())} if trace is not None else None
    start = time.perf_counter()
    p = subprocess.Popen([worker] + run_args(config, workdir), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE if trace is not None else subprocess.DEVNULL,
                         env=environment(policy, extra))
    elapsed = until_hello(p, start)
    p.kill()
    _, err = p.communicate()
    if elapsed is None:
        sys.exit(f"{worker}: no hello")
    if trace is not None:
        for line in (err or b"").decode(errors="replace").splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[0] == "startup:":
                trace.setdefault(parts[1], []).append(float(parts[2]))
    return elapsed


def standby(worker, config, workdir):
    """(launch-to-ready, assignment-to-hello) seconds of a standby, as the scheduler starts it."""
    start = time.perf_counter()
    p = subprocess.Popen([worker, "--standby"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=environment("PASSIVE"))
    if p.stdout.readline().strip() != READY:
        sys.exit(f"{worker} --standby: no ready line")
    ready = time.perf_counter() - start
    assignment = {"args": run_args(config, workdir), "env": {},
                  "stderr": os.path.join(os.path.dirname(workdir), "standby.log")}
    start = time.perf_counter()
    p.stdin.write((json.dumps(assignment) + "\n").encode())
    p.stdin.flush()
    elapsed = until_hello(p, start)
    p.kill()
    p.communicate()
    if elapsed is None:
        sys.exit(f"{worker} --standby: no hello after the assignment")
    return ready, elapsed


def wait_policy(worker, config, workdir, policy):
    env = environment(policy, {"OMP_DISPLAY_ENV": "VERBOSE"})
    p = subprocess.Popen([worker] + run_args(config, workdir), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    until_hello(p, time.perf_counter())
    p.kill()
    _, err = p.communicate()
    # libgomp prints 'PASSIVE' for an unset policy too: the spin count tells (0 when passive).
    lines = [line.strip() for line in err.decode(errors="replace").splitlines()
             if "OMP_WAIT_POLICY" in line or "GOMP_SPINCOUNT" in line]
    return ", ".join(lines) or "(libgomp printed no wait policy)"


def summary(name, worker, seconds):
    ms = sorted(1000 * t for t in seconds)
    what = "launch_to_ready_ms" if name == "standby_ready" else "launch_to_hello_ms"
    target = "" if name == "standby_ready" else " target_ms=300"
    return (f"{what} row={name:<14} median={statistics.median(ms):5.0f} "
            f"min={ms[0]:5.0f} max={ms[-1]:5.0f}{target} worker={worker}")


def main():
    args = sys.argv[1:]
    runs, old = 10, None
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if "--old-worker" in args:
        i = args.index("--old-worker")
        old = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    worker = args[0]
    with tempfile.TemporaryDirectory() as directory:
        config = tiny_run(directory)
        rows = {"cold, re-exec": [], "cold": [], "standby": [], "standby_ready": []}
        trace = {}
        for r in range(runs):
            w = lambda name: os.path.join(directory, f"{name}-{r}", "run")
            if old:
                rows["cold, re-exec"].append(cold(old, config, w("old"), None))
            rows["cold"].append(cold(worker, config, w("cold"), "PASSIVE", trace))
            ready, hello = standby(worker, config, w("standby"))
            rows["standby_ready"].append(ready)
            rows["standby"].append(hello)
        for name, seconds in rows.items():
            if seconds:
                print(summary(name, old if name == "cold, re-exec" else worker, seconds))
        phases = " ".join(f"{phase}={statistics.median(ms):.1f}" for phase, ms in
                          sorted(trace.items(), key=lambda item: statistics.median(item[1])))
        print(f"cold_phases_ms_since_launch (medians) {phases}")
        if old:
            print(f"  wait policy, cold re-exec: "
                  f"{wait_policy(old, config, os.path.join(directory, 'p-old'), None)}")
        print(f"  wait policy, cold as launched: "
              f"{wait_policy(worker, config, os.path.join(directory, 'p-new'), 'PASSIVE')}")


if __name__ == "__main__":
    main()
