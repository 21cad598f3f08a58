#!/usr/bin/env python3
"""Worker start-up benchmark: time from launching deepladder-worker to its hello line (the first
protocol message on stdout), for one or more worker binaries side by side in one run, alternating
launches so background load hits each alike. A tiny text run (d32, one layer) is trained to its
hello only: the worker is killed once it said hello. Also prints, per binary, the OpenMP wait
policy libgomp ended up with (OMP_DISPLAY_ENV=VERBOSE), with OMP_WAIT_POLICY unset.
Usage: worker_startup_bench.py WORKER [WORKER ...] [--runs N]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


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


def clean_env():
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    return env


def launch_to_hello(worker, config, workdir):
    start = time.perf_counter()
    p = subprocess.Popen([worker, "--config", config, "--workdir", workdir, "--run-id", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=clean_env())
    elapsed = None
    for line in p.stdout:
        if b'"hello"' in line:
            elapsed = time.perf_counter() - start
            break
    p.kill()
    p.wait()
    if elapsed is None:
        sys.exit(f"{worker}: no hello")
    return elapsed


def wait_policy(worker, config, workdir):
    env = clean_env()
    env["OMP_DISPLAY_ENV"] = "VERBOSE"
    p = subprocess.Popen([worker, "--config", config, "--workdir", workdir, "--run-id", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    for line in p.stdout:
        if b'"hello"' in line:
            break
    p.kill()
    _, err = p.communicate()
    # libgomp prints 'PASSIVE' for an unset policy too: the spin count tells (0 when passive).
    lines = [line.strip() for line in err.decode(errors="replace").splitlines()
             if "OMP_WAIT_POLICY" in line or "GOMP_SPINCOUNT" in line]
    return ", ".join(lines) or "(libgomp printed no wait policy)"


def main():
    args = sys.argv[1:]
    runs = 10
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as directory:
        config = tiny_run(directory)
        times = {w: [] for w in args}
        for r in range(runs):
            for k, w in enumerate(args):
                workdir = os.path.join(directory, f"w{k}-{r}")
                times[w].append(launch_to_hello(w, config, workdir))
        for k, w in enumerate(args):
            ms = sorted(1000 * t for t in times[w])
            print(f"launch_to_hello_ms worker={w} runs={runs} median={statistics.median(ms):.0f} "
                  f"min={ms[0]:.0f} max={ms[-1]:.0f} target_ms=300")
            print(f"  {wait_policy(w, config, os.path.join(directory, f'p{k}'))}")


if __name__ == "__main__":
    main()
