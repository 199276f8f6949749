"""Interleaved A/B of the hydraulic race's flexmbs runs between two source trees (issue 41): on a shared machine whose
speed drifts by up to 1.75x within minutes, only a paired comparison means something.

Usage: ``python benchmarks/race_ab.py TREE_A TREE_B [rounds] [runs]`` (a tree: a checkout or ``git archive`` of this
repository; it is imported by ``PYTHONPATH``). Each round runs one
subprocess per tree (A then B, order alternating), each measuring the median CPU time (process_time) of `runs` coarse
(rtol 1e-3) and `runs` default runs after 20 warm-up runs. Prints per-round medians and the median difference."""
import json, os, statistics, subprocess, sys

CHILD = r'''
import sys, time, statistics, json
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import race_hydraulic as R, flexmbs as fm
assert fm.__file__.startswith(sys.argv[1]), fm.__file__
def one(**kw):
    m = R.flexmbs_model()
    c0 = time.process_time()
    fm.simulate(m, R.T_END, rho_inf=R.RHO_INF, output_interval=R.OUTPUT_INTERVAL, outputs=R.FLEXMBS_OUTPUTS, **kw)
    return time.process_time() - c0
import gc
for _ in range(20): one(rtol=1e-3, atol=1e-5); one()
gc.collect(); gc.freeze()
n = int(sys.argv[2])
c = [one(rtol=1e-3, atol=1e-5) for _ in range(n)]
d = [one() for _ in range(n)]
print(json.dumps([statistics.median(c) * 1e6, statistics.median(d) * 1e6]))
'''


def measure(tree, runs):
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, "-c", CHILD, tree, str(runs)], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    a, b = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 150
    da, db = [], []
    print("load before:", open("/proc/loadavg").read().split()[:3])
    for r in range(rounds):
        order = [(a, da), (b, db)] if r % 2 == 0 else [(b, db), (a, da)]
        for tree, acc in order:
            acc.append(measure(tree, runs))
        print(f"round {r}: A coarse {da[-1][0]:.0f} default {da[-1][1]:.0f} µs | B coarse {db[-1][0]:.0f} default "
              f"{db[-1][1]:.0f} µs", flush=True)
    for k, name in enumerate(("coarse", "default")):
        diffs = [y[k] - x[k] for x, y in zip(da, db)]
        print(f"{name}: A median {statistics.median(x[k] for x in da):.0f} µs, B median "
              f"{statistics.median(y[k] for y in db):.0f} µs, B - A per round median "
              f"{statistics.median(diffs):+.0f} µs "
              f"(all {', '.join(f'{d:+.0f}' for d in diffs)})")
    print("load after:", open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()
