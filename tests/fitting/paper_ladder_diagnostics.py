#!/usr/bin/env python3
"""Independent expectations for FitDiagnostics.WhatTheyReportOnThePaperFinewebLadder.

Reads tests/fitting/data/paper_fineweb_ladders.csv with numpy/scipy only (no deepladder code) and
prints, for the shared E = 1.7064 (the baseline's E-free fit, checked against the paper's published
exponents in paper_ladder_test.cpp): the distance of 1e26 FLOPs from the largest rung in decades,
each arm's slope change of ln(L - E) across its rungs (numpy.polyfit quadratic, 2 b2 (x_max -
x_min)) with its standard error, and untied_grow's own E (a profile over E of the least-squares line
of ln(L - E) on ln(C/1e18), residuals in loss) with the F test against the shared E (scipy.stats.f).
Run: /usr/bin/python3 tests/fitting/paper_ladder_diagnostics.py (Debian's python3-numpy, -scipy).
"""
import csv
import os

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
rows = [l for l in open(os.path.join(HERE, "data/paper_fineweb_ladders.csv")) if not l.startswith("#")]
arms = {}
for r in csv.DictReader(rows):
    arms.setdefault(r["arm"], []).append((float(r["compute_flops"]), float(r["val_loss"])))
E = 1.7064
top = max(c for pts in arms.values() for c, _ in pts)
print("1e26 is %.4f decades beyond the largest rung %.6g" % (np.log10(1e26 / top), top))
for arm, pts in sorted(arms.items()):
    pts.sort()
    C = np.array([p[0] for p in pts])
    L = np.array([p[1] for p in pts])
    x = np.log(C / 1e18)
    y = np.log(L - E)
    u = x - x.mean()
    b, cov = np.polyfit(u, y, 2, cov="unscaled")
    s2 = ((y - np.polyval(b, u)) ** 2).sum() / (len(x) - 3)
    span = x.max() - x.min()
    print("%s: %d rungs, slope change %.4f (se %.4f)"
          % (arm, len(x), 2 * b[0] * span, 2 * np.sqrt(s2 * cov[0, 0]) * span))

pts = sorted(arms["untied_grow"])
C = np.array([p[0] for p in pts])
L = np.array([p[1] for p in pts])
x = np.log(C / 1e18)


def rss(e):
    line = np.polyfit(x, np.log(L - e), 1)
    return ((L - e - np.exp(np.polyval(line, x))) ** 2).sum()


grid = np.linspace(0, L.min() * (1 - 1e-9), 20001)[:-1]
values = np.array([rss(e) for e in grid])
best = int(values.argmin())
F = (rss(E) - values[best]) / (values[best] / (len(x) - 3))
print("untied_grow: own E %.4f, F %.1f, p %.2g" % (grid[best], F, stats.f.sf(F, 1, len(x) - 3)))
