"""Bitwise check of engine changes that must not change results (issue 41's performance work).

``PYTHONPATH=<tree> python tools/bitwise_check.py run OUT`` writes the hydraulic race model's results (three
tolerances, with and without its output request, every recorded signal and the step statistics) and eight
``flexmbs run -o`` cases into OUT; ``python tools/bitwise_check.py compare A B`` compares every array of two such
directories with ``np.array_equal`` (exit 1 on any difference; wall-clock datasets left out)."""
import os, subprocess, sys
import numpy as np

CASES = [("fourbar-hydraulic", [], 1.0), ("slider-crank", [], 0.3), ("excavator", ["--set", "scenario=free-fall"], 0.5),
         ("classic-mechanisms", ["--set", "mechanism=bricard"], 0.5), ("platen-stroke", [], 0.3),
         ("spin-up-beam", [], 2.0), ("clamp-locking", ["--set", "flexible=false"], 0.05), ("compactor", [], 0.2)]


def run(out):
    os.makedirs(out, exist_ok=True)
    tree = os.environ.get("PYTHONPATH", "").split(":")[0] or "/work/main"
    sys.path.insert(0, os.path.join(tree, "benchmarks"))
    import race_hydraulic as R
    import flexmbs as fm
    from flexmbs.results.outputs import NotRecordedError
    print("flexmbs from", fm.__file__)
    for tag, kw in [("coarse", dict(rtol=1e-3, atol=1e-5)), ("default", {}), ("fine", dict(rtol=1e-6, atol=1e-8))]:
        for outputs in (None, R.FLEXMBS_OUTPUTS):
            m = R.flexmbs_model()
            r = fm.simulate(m, R.T_END, rho_inf=R.RHO_INF, output_interval=R.OUTPUT_INTERVAL, outputs=outputs, **kw)
            arrays = {"time": r.time, "states": np.asarray(r.states)}
            for name in r.signals():
                try:
                    arrays["sig:" + name] = np.asarray(r[name])
                except NotRecordedError:  # left out by the output request
                    pass
            st = {k: v for k, v in r.statistics.items() if k not in ("wall_time_s", "compile_time_s")}
            arrays["stats"] = np.array(repr(sorted(st.items())))
            np.savez(os.path.join(out, f"race_{tag}_{'req' if outputs else 'all'}.npz"), **arrays)
    for case, extra, t_end in CASES:
        path = os.path.abspath(os.path.join(out, f"{case}.results.h5"))
        if os.path.exists(path):
            os.remove(path)
        p = subprocess.run([sys.executable, "-m", "flexmbs", "run", case, *extra, "--t-end", str(t_end), "-o", path,
                            "--quiet"], capture_output=True, text=True, cwd=out)
        print(case, "exit", p.returncode, p.stderr.strip().splitlines()[-1:] if p.returncode else "")


def compare(a, b):
    import h5py
    bad = 0
    seen = 0
    for f in sorted(os.listdir(a)):
        pa, pb = os.path.join(a, f), os.path.join(b, f)
        if not os.path.exists(pb):
            print("missing in B:", f); bad += 1; continue
        if f.endswith(".npz"):
            A, B = np.load(pa, allow_pickle=True), np.load(pb, allow_pickle=True)
            for k in sorted(set(A.files) | set(B.files)):
                seen += 1
                if k not in A.files or k not in B.files:
                    print(f, k, "only in one"); bad += 1
                elif A[k].dtype == object:
                    if repr(A[k].tolist()) != repr(B[k].tolist()):
                        print(f, k, "differs (object)"); bad += 1
                elif not np.array_equal(A[k], B[k], equal_nan=A[k].dtype.kind == "f"):
                    same_shape = A[k].dtype.kind == "f" and A[k].shape == B[k].shape
                    d = np.max(np.abs(A[k] - B[k])) if same_shape else "shape/str"
                    print(f, k, "differs", d); bad += 1
        elif f.endswith(".h5"):
            with h5py.File(pa) as A, h5py.File(pb) as B:
                names = []
                A.visit(lambda n: names.append(n) if isinstance(A[n], h5py.Dataset) else None)
                namesb = []
                B.visit(lambda n: namesb.append(n) if isinstance(B[n], h5py.Dataset) else None)
                for n in sorted(set(names) | set(namesb)):
                    if "wall" in n or "elapsed" in n:
                        continue
                    if n not in names or n not in namesb:
                        print(f, n, "only in one"); bad += 1; continue
                    x, y = A[n][()], B[n][()]
                    seen += 1
                    try:
                        same = np.array_equal(x, y, equal_nan=np.asarray(x).dtype.kind == "f")
                    except Exception:
                        same = x == y
                    if not same:
                        print(f, n, "differs"); bad += 1
    print("arrays compared:", seen, "differences:", bad)
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2])
    else:
        sys.exit(1 if compare(sys.argv[2], sys.argv[3]) else 0)
