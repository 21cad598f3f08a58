#!/usr/bin/python3
"""Baseline for fitting_bench: Chinchilla Approach 3 with scipy.optimize.minimize(L-BFGS-B).

Same objective as fitting/chinchilla_approach3.cpp: sum over points of
Huber_{1e-3}(LSE(a - alpha ln N, b - beta ln D, e) - ln L), analytic gradient; same 4,500 starts
(alpha, beta in 0..2 step 0.5, e in -1..1 step 0.5, a, b in 0..25 step 5). Reads params,tokens,loss
from the CSV given as argv[1]; prints one JSON object: best_objective, seconds, cpu_seconds, starts, converged.
"""
import itertools
import json
import sys
import time

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

DELTA = 1e-3


def main():
    data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
    log_n, log_d, log_l = np.log(data[:, 0]), np.log(data[:, 1]), np.log(data[:, 2])

    def objective(x):
        a, b, e, alpha, beta = x
        u = np.stack([a - alpha * log_n, b - beta * log_d, np.full_like(log_n, e)])
        lse = logsumexp(u, axis=0)
        r = lse - log_l
        small = np.abs(r) <= DELTA
        f = np.where(small, 0.5 * r * r, DELTA * (np.abs(r) - 0.5 * DELTA)).sum()
        dr = np.where(small, r, DELTA * np.sign(r))
        w = np.exp(u - lse) * dr  # softmax weights times dHuber/dr
        grad = np.array([w[0].sum(), w[1].sum(), w[2].sum(),
                         -(w[0] * log_n).sum(), -(w[1] * log_d).sum()])
        return f, grad

    grid = itertools.product(np.arange(0, 2.01, 0.5), np.arange(0, 2.01, 0.5),
                             np.arange(-1, 1.01, 0.5), np.arange(0, 26, 5), np.arange(0, 26, 5))
    starts = [np.array([a, b, e, alpha, beta]) for alpha, beta, e, a, b in grid]
    t0 = time.perf_counter()
    c0 = time.process_time()
    best = np.inf
    converged = 0
    for x0 in starts:
        res = minimize(objective, x0, jac=True, method="L-BFGS-B",
                       options={"ftol": 1e-14, "gtol": 1e-11, "maxiter": 1000})
        if res.success and np.isfinite(res.fun):
            converged += 1
            best = min(best, float(res.fun))
    seconds = time.perf_counter() - t0
    cpu_seconds = time.process_time() - c0
    print(json.dumps({"best_objective": best, "seconds": seconds, "cpu_seconds": cpu_seconds,
                      "starts": len(starts),
                      "converged": converged}))


if __name__ == "__main__":
    main()
