#!/usr/bin/env python3
"""Derive public scaling-ladder CSVs (deepladder frontier form) from fetched public data.

Reads git snapshots under /work/.mirror (made with the search tool's `fetch`) and writes
<source>.csv (arm,compute_flops,val_loss) and *.sizes.csv (params,tokens,loss) beside this
script. Every number is copied from the source; only compute (where stated) and the choice of
rows (minimum per isoFLOP budget, lower envelope, best learning rate) are derived here.
Run with a Python that has pandas (Debian's /usr/bin/python3 + python3-pandas); name sources to
write only those (`make_ladders.py gadre` needs no pandas).
"""
import io
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

import numpy as np

try:
    import pandas as pd  # every source but gadre (plain JSON)
except ImportError:
    pd = None

MIRROR = "/work/.mirror"
OUT = os.path.dirname(os.path.abspath(__file__))


def git_show(repo, path):
    d = f"{MIRROR}/{repo}/repo"
    return subprocess.run(["git", "-C", d, "show", f"HEAD:{path}"], check=True,
                          capture_output=True).stdout


def head(repo):
    d = f"{MIRROR}/{repo}/repo"
    return subprocess.run(["git", "-C", d, "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def fmt(x):
    return repr(float(x))


SUMMARY = []  # (file, arm, rungs, cmin, cmax)


def write_ladder(fname, comment, arms):
    """arms: list of (arm, [(compute, loss), ...]) sorted by compute."""
    path = os.path.join(OUT, fname)
    with open(path, "w") as f:
        f.write("# " + comment.replace("\n", " ") + "\n")
        f.write("arm,compute_flops,val_loss\n")
        for arm, rows in arms:
            rows = sorted(rows)
            cs = [c for c, _ in rows]
            assert len(set(cs)) == len(cs), (arm, "duplicate compute")
            for c, l in rows:
                f.write(f"{arm},{fmt(c)},{fmt(l)}\n")
            SUMMARY.append((fname, arm, len(rows), min(cs), max(cs)))


def write_sizes(fname, rows):
    path = os.path.join(OUT, fname)
    with open(path, "w") as f:
        f.write("params,tokens,loss\n")
        for n, d, l in rows:
            f.write(f"{fmt(n)},{fmt(d)},{fmt(l)}\n")
    SUMMARY.append((fname, "(sizes)", len(rows), None, None))


def lower_envelope(points):
    """Running minimum: keep a point iff its loss is below every point of smaller compute."""
    out, best = [], math.inf
    for c, l in sorted(points):
        if l < best:
            out.append((c, l))
            best = l
    return out


def isoflop_min(groups):
    """groups: budget -> list of (size, loss). Minimum-loss point per budget; budgets whose
    minimum is attained only at the smallest or largest size of that budget's grid are dropped
    (no interior minimum, so the grid may have missed the optimum); ties count as interior."""
    out, dropped = [], []
    for b, pts in sorted(groups.items()):
        pts = sorted(pts)
        m = min(l for _, l in pts)
        if len(pts) < 3 or not any(l == m for _, l in pts[1:-1]):
            dropped.append(b)
            continue
        out.append((b, m))
    return out, dropped


# ---------------------------------------------------------------- Chinchilla (Epoch AI)
def chinchilla():
    repo = "epoch-research+analyzing-chinchilla"
    commit = head(repo)
    raw = pd.read_csv(io.BytesIO(git_show(repo, "data/svg_extracted_data.csv")))
    n = raw["Model Size"].to_numpy(float)
    c = raw["Training FLOP"].to_numpy(float)
    loss = raw["loss"].to_numpy(float)
    write_sizes("chinchilla_epoch.sizes.csv",
                sorted(zip(n, c / (6 * n), loss)))
    budgets = [6e18, 1e19, 3e19, 6e19, 1e20, 3e20, 6e20, 1e21, 3e21]
    groups = defaultdict(list)
    for ni, ci, li in zip(n, c, loss):
        rel = [abs(ci / b - 1) for b in budgets]
        j = int(np.argmin(rel))
        if rel[j] < 0.10:
            groups[budgets[j]].append((ni, li))
    iso, dropped = isoflop_min(groups)
    env = lower_envelope(list(zip(c, loss)))
    comment = (f"Hoffmann et al. 2022 (Chinchilla, DeepMind) training runs as extracted from Figure 4 "
               f"by Epoch AI (Besiroglu et al. 2024): github epoch-research/analyzing-chinchilla "
               f"data/svg_extracted_data.csv @ {commit} (245 points: Model Size N, Training FLOP C, loss; "
               f"no licence file in the repo). Loss is the final training loss on MassiveText as plotted. "
               f"Arm chinchilla_isoflop_min: each point's C is snapped to the nearest of the paper's 9 "
               f"isoFLOP budgets (6e18..3e21) when within 10%; compute_flops = that nominal budget; val_loss = "
               f"minimum loss among that budget's points (budgets whose minimum is attained only at the smallest/largest N "
               f"of its grid dropped: {dropped}). Arm chinchilla_envelope: lower envelope (running minimum "
               f"of loss over increasing C) over all 245 points, compute_flops = Epoch's extracted Training "
               f"FLOP (not rounded or snapped). Sizes file chinchilla_epoch.sizes.csv: N, tokens D = C/(6N), loss.")
    write_ladder("chinchilla_epoch.csv", comment,
                 [("chinchilla_isoflop_min", iso), ("chinchilla_envelope", env)])


# ---------------------------------------------------------------- Marin
def marin():
    repo = "Open-Athena+scaling-law-analysis"
    commit = head(repo)
    arms = []
    notes = []
    for ds in ["comma", "dclm", "nemotron"]:
        p = f"data/isoflops/extract/marin_202603/raw/isoflop-{ds}.csv"
        raw = pd.read_csv(io.BytesIO(git_show(repo, p)))
        raw["C"] = raw["throughput/total_gflops"].astype(float) * 1e9
        raw["N"] = raw["parameter_count"].astype(float)
        raw["D"] = raw["throughput/total_tokens"].astype(float)
        raw["L"] = raw["eval/paloma/macro_loss"].astype(float)
        opt = raw[raw.Name.str.contains("validation-optimal")]
        iso = raw[raw.Name.str.startswith("isoflop-")]
        write_sizes(f"marin_{ds}.sizes.csv", sorted(zip(raw.N, raw.D, raw.L)))
        groups = defaultdict(list)
        for _, r in iso.iterrows():
            # all runs of one named budget log the same total FLOPs to 4 digits
            groups[float(f"{r.C:.3g}")].append((r.N, r.L))
        pts, dropped = isoflop_min(groups)
        arms.append((f"marin_{ds}_isoflop_min", pts))
        notes.append(f"{ds}: dropped budgets {dropped}")
        if len(opt):
            arms.append((f"marin_{ds}_optimal", list(zip(opt.C, opt.L))))
    comment = (f"Marin (marin-community) scaling-ladder runs, W&B exports stored in github "
               f"Open-Athena/scaling-law-analysis data/isoflops/extract/marin_202603/raw/isoflop-{{comma,dclm,"
               f"nemotron}}.csv @ {commit} (report wandb marin-community/marin 'Scaling Ladders'; no licence "
               f"file in that repo). Loss = eval/paloma/macro_loss (Paloma macro-averaged validation loss) at the "
               f"end of each run. compute_flops = throughput/total_gflops * 1e9 as logged by Marin (for isoflop-* "
               f"runs this is 3x the budget in the run name, for the *-validation-optimal-* runs it equals it). "
               f"Arms *_isoflop_min: per budget the minimum loss over the isoflop-* grid runs (budgets whose minimum "
               f"is attained only at the smallest/largest model of the grid dropped; {'; '.join(notes)}). Arms *_optimal: the "
               f"exp2166 *-validation-optimal-* runs, one run per budget at Marin's predicted compute-optimal size "
               f"(one run each, not minima). Sizes files marin_<dataset>.sizes.csv: all runs of that dataset, "
               f"params = parameter_count, tokens = throughput/total_tokens, loss = paloma macro loss.")
    write_ladder("marin.csv", comment, arms)


# ---------------------------------------------------------------- Llama 3
def llama3():
    repo = "eric-czech+llama3_isoflop_extraction"
    commit = head(repo)
    raw = pd.read_csv(io.BytesIO(git_show(repo, "isoflops_points.csv")))
    c = raw.compute_budget.astype(float).to_numpy()
    d = raw.training_tokens.astype(float).to_numpy()
    l = raw.validation_loss.astype(float).to_numpy()
    write_sizes("llama3.sizes.csv", sorted(zip(c / (6 * d), d, l)))
    groups = defaultdict(list)
    for ci, di, li in zip(c, d, l):
        groups[ci].append((-di, li))  # order by N = C/(6D), i.e. by decreasing D
    pts, dropped = isoflop_min(groups)
    comment = (f"Llama 3 (Meta, Dubey et al. 2024) Figure 2 isoFLOP curves, points digitized from the paper's "
               f"SVG by github eric-czech/llama3_isoflop_extraction isoflops_points.csv @ {commit} (no licence "
               f"file). Columns compute_budget (the paper's nominal budget, 6e18..1e22), training_tokens, "
               f"validation_loss (the figure's held-out validation loss, as digitized). Arm llama3_isoflop_min: "
               f"compute_flops = nominal budget; val_loss = minimum digitized loss at that budget (budgets whose "
               f"minimum is attained only at the fewest/most tokens of the grid dropped: {dropped}). Sizes file llama3.sizes.csv: "
               f"params N = C/(6D) (derived, the paper gives no N), tokens D, loss.")
    write_ladder("llama3.csv", comment, [("llama3_isoflop_min", pts)])


# ---------------------------------------------------------------- (Mis)Fitting (Li et al.)
def misfitting():
    repo = "hadasah+scaling_laws"
    commit = head(repo)
    raw = pd.read_csv(io.BytesIO(git_show(repo, "data/scaling_results_last_ckpt_only.csv")))
    assert (raw.current_steps == raw.total_steps).all()
    raw["N"] = raw.N.astype(float)
    raw["D"] = raw.D.astype(float)
    best = raw.groupby(["model", "N", "D"], as_index=False)["loss"].min()
    best["C"] = 6 * best.N * best.D
    write_sizes("misfitting.sizes.csv", sorted(zip(best.N, best.D, best.loss)))
    arms = [("misfitting_envelope", lower_envelope(list(zip(best.C, best.loss))))]
    kept = []
    for (model, n), g in sorted(best.groupby(["model", "N"]), key=lambda kv: kv[0][1]):
        cs = g.C.to_numpy()
        if g.D.nunique() >= 5 and math.log10(cs.max() / cs.min()) >= 1.5:
            arms.append((f"misfitting_fixedN_{model.split('_')[1]}", list(zip(g.C, g.loss))))
            kept.append(model)
    comment = (f"Li, Kudugunta & Zettlemoyer 2025, '(Mis)Fitting Scaling Laws' (ICLR 2025) own open_lm runs "
               f"(FineWeb training, C4 eval): github hadasah/scaling_laws data/scaling_results_last_ckpt_only.csv "
               f"@ {commit} (no licence file). Each row is the last checkpoint of a run whose schedule ends there "
               f"(current_steps == total_steps); loss = 'loss' column = C4 Eval Loss. For each (model size N, "
               f"tokens D) the minimum over learning rates / repeated rows is taken (best LR). compute_flops = 6*N*D "
               f"with N = total params incl. embeddings (column N; equals the file's C_6ND). Arm misfitting_envelope: "
               f"lower envelope (running minimum over increasing compute) of those best-LR final losses. Arms "
               f"misfitting_fixedN_<size>: one model size at increasing D (a data ladder; L(C) at fixed N has the "
               f"same E + A C^-b form), kept where >= 5 D values span >= 1.5 decades: {kept}. Sizes file "
               f"misfitting.sizes.csv: N, D, best-LR final loss.")
    write_ladder("misfitting.csv", comment, arms)


# ---------------------------------------------------------------- Porian et al. (formll)
def porian():
    repo = "formll+resolving-scaling-law-discrepancies"
    commit = head(repo)
    arms = []
    notes = []
    for fn, ds in [("data/summary_df.pickle.xz", "rw"), ("data/summary_df_owt2.pickle.xz", "owt2")]:
        df = pd.read_pickle(io.BytesIO(git_show(repo, fn)), compression="xz")
        for _, r in df.iterrows():
            if r.param_count != "standard" or r.val != "val":
                continue
            arm = f"porian_{ds}_{r.hparams}_{r.warmup}warmup_{r.decay}decay"
            op = r.optimal_pairs
            groups = {}
            sizes = []
            for _, b in op.iterrows():
                nv = np.asarray(b.n_vals, float)
                tv = np.asarray(b.t_vals, float)
                lv = np.asarray(b.loss_vals, float)
                groups[float(b.flops)] = list(zip(nv, lv))
                sizes += list(zip(nv, tv, lv))
            pts, dropped = isoflop_min(groups)
            arms.append((arm, pts))
            notes.append(f"{arm} dropped {dropped}")
            write_sizes(f"porian.{ds}_{r.hparams}_{r.warmup}warmup_{r.decay}decay.sizes.csv", sorted(sizes))
    comment = (f"Porian, Wortsman, Jitsev, Schmidt & Carmon 2024, 'Resolving Discrepancies in Compute-Optimal "
               f"Scaling of Language Models': github formll/resolving-scaling-law-discrepancies "
               f"data/summary_df.pickle.xz (RefinedWeb) and data/summary_df_owt2.pickle.xz (OpenWebText2) @ {commit} "
               f"(MIT licence). Rows with param_count='standard' and val='val' (validation loss); one arm per "
               f"(dataset, hparams base/tuned, warmup long/short, decay kaplan/chinchilla/const) setting. Per isoFLOP "
               f"budget (column flops: 1.25e16*2^k; decay kaplan = cosine over a long horizon and const = constant LR, both read at the budget from longer runs, chinchilla = cosine ending at the budget; FLOPs = 6*N*D with N = params incl. embeddings as defined by "
               f"the authors) the raw points n_vals/t_vals/loss_vals of optimal_pairs are used; compute_flops = the "
               f"budget; val_loss = minimum raw validation loss at that budget (not the authors' interpolated "
               f"optimum). Budgets whose minimum is attained only at the smallest/largest N of the grid dropped ({'; '.join(notes)}). "
               f"Sizes files porian.<setting>.sizes.csv: raw points N = n_vals, D = t_vals, loss = loss_vals.")
    write_ladder("porian.csv", comment, arms)


# ---------------------------------------------------------------- Gadre et al. (mlfoundations)
def gadre():
    repo = "mlfoundations+scaling"
    commit = head(repo)
    d = f"{MIRROR}/{repo}/repo"
    paths = subprocess.run(["git", "-C", d, "ls-tree", "-r", "--name-only", "HEAD", "exp_data/models"],
                           check=True, capture_output=True, text=True).stdout.split()
    short = {"c4_original": "c4", "rpj": "rpj", "rw_original": "rw"}
    runs = defaultdict(list)  # dataset -> (N, D, C4 validation loss, chinchilla multiplier)
    for path in paths:
        j = json.loads(git_show(repo, path))
        h = j["hyperparameters"]
        c4 = [r for r in j["results"] if any("c4_val" in v for v in r["val_data"])]
        assert len(c4) == 1, (path, "expected one C4 validation result")
        runs[short[j["dataset_name"]]].append(
            (float(h["params"]), float(h["tokens"]), float(c4[0]["loss"]), float(h["chinchilla_multiplier"])))
    arms = []
    for ds in sorted(runs):
        rows = runs[ds]
        arms.append((f"gadre_{ds}_m20", sorted((6 * n * t, l) for n, t, l, m in rows if m == 1.0)))
        arms.append((f"gadre_{ds}_envelope", lower_envelope([(6 * n * t, l) for n, t, l, m in rows])))
        write_sizes(f"gadre.{ds}.sizes.csv", sorted((n, t, l) for n, t, l, m in rows))
    comment = (f"Gadre et al. 2024, 'Language models scale reliably with over-training and on downstream "
               f"tasks': github mlfoundations/scaling exp_data/models/*.json @ {commit} (open_lm runs on "
               f"C4, RedPajama (rpj) and RefinedWeb (rw); MIT licence). Per run: N = "
               f"hyperparameters.params (incl. embeddings), D = hyperparameters.tokens, loss = the result whose "
               f"val_data is C4's validation shards (the paper's C4 eval loss); compute_flops = 6*N*D. Arms "
               f"gadre_<data>_m20: the runs with chinchilla_multiplier 1.0 (D = 20 N), six sizes 11M-6.9B; "
               f"gadre_<data>_envelope: lower envelope (running minimum over increasing compute) of every run of "
               f"that dataset (token multipliers 0.25-32). Sizes files gadre.<data>.sizes.csv: every run's N, D, loss.")
    write_ladder("gadre.csv", comment, arms)


SOURCES = {"chinchilla": chinchilla, "marin": marin, "llama3": llama3, "misfitting": misfitting,
           "porian": porian, "gadre": gadre}
WITHOUT_PANDAS = {"gadre"}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(SOURCES):
        if name not in SOURCES:
            sys.exit(f"make_ladders.py: unknown source {name!r}; one of {', '.join(SOURCES)}")
        if pd is None and name not in WITHOUT_PANDAS:
            sys.exit(f"make_ladders.py: {name} needs pandas (apt-get install python3-pandas), "
                     f"or name only {', '.join(sorted(WITHOUT_PANDAS))}")
        SOURCES[name]()
    with open(os.path.join(OUT, "summary.tsv"), "w") as f:
        for fname, arm, n, cmin, cmax in SUMMARY:
            span = "" if cmin is None else f"{cmin:.3g}\t{cmax:.3g}\t{math.log10(cmax / cmin):.2f}"
            f.write(f"{fname}\t{arm}\t{n}\t{span}\n")
