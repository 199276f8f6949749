"""Benchmark: Craig–Bampton reduction, measured against its own limit (one factorization of K_ii).

    python benchmarks/reduce.py bar     [--runs 3]   # ~177 000-dof tet10 bar, 2 RBE2 interfaces, 20 modes
    python benchmarks/reduce.py plate   [--runs 3]   # seed 003 §5.1.2 scale: ~150 000 dofs, 20 bores -> ~150 coords

Each run, in fresh processes: (1) the whole ``flexmbs reduce`` command (bar only; mesh reading, assembly, spiders,
Craig–Bampton with one K_ii factorization, orthonormalization, invariants, modal stress, writing the file; the full
free–free comparison is skipped with ``--compare 0``, it is a separate modal analysis: benchmarks/fem_modal.py),
wall and CPU time (user + system of the child) and peak RSS; (2) plate only: the in-process reduction
(``reduction.reduce``) with its peak RSS; (3) one PARDISO factorization of the same interior stiffness K_ii (assembly not timed), wall and
CPU. Medians of ``--runs``, the ratio whole / factorization, and the load average before and after.
Mesh generation is not timed. Targets (issue 31): whole ≤ 5× one factorization and ≤ 3 GB for the bar.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import measure  # noqa: E402

BAR_INTERFACES = {"a": "box:-1e-9,-1,-1,1e-9,1,1", "b": "box:0.999999,-1,-1,1.000001,1,1"}
BAR_OUTPUTS = "box:0.45,-1,-1,0.55,2,1"
PLATE = {"length": 2.0, "width": 1.2, "thickness": 0.12, "bore": 0.07, "rows": 4, "cols": 5}


def plate_mesh(path: str, size: float) -> str:
    """A thick plate with a 4 × 5 grid of through bores (a clamp-base-like part)."""
    from fem.meshing import gmsh_session

    p = PLATE
    with gmsh_session("plate") as g:
        occ = g.model.occ
        plate = occ.addBox(0, 0, 0, p["length"], p["width"], p["thickness"])
        holes = [(3, occ.addCylinder(x, y, -0.1, 0, 0, p["thickness"] + 0.2, p["bore"] / 2))
                 for x, y in _bore_centres()]
        occ.cut([(3, plate)], holes)
        occ.synchronize()
        g.option.setNumber("Mesh.MeshSizeMax", size)
        g.option.setNumber("Mesh.MeshSizeMin", size * 0.8)
        g.model.mesh.generate(3)
        g.model.mesh.setOrder(2)
        g.write(path)
    return path


def _bore_centres():
    p = PLATE
    xs = np.linspace(0.2, p["length"] - 0.2, p["cols"])
    ys = np.linspace(0.2, p["width"] - 0.2, p["rows"])
    return [(x, y) for y in ys for x in xs]


def _model(kind: str, mesh_path: str):
    from fem.mesh import load_mesh
    from fem.model import solid_model

    model = solid_model(load_mesh(mesh_path), "steel")
    if kind == "bar":
        for name, selector in BAR_INTERFACES.items():
            model.add_reference_node(name, selector, "rbe2")
        return model, {"a": "123456", "b": "123456"}, 20
    interfaces = {}
    r, t = PLATE["bore"] / 2, PLATE["thickness"]
    for k, (x, y) in enumerate(_bore_centres()):
        name = f"bore{k:02d}"
        model.add_reference_node(name, f"cylinder:{x},{y},0,{x},{y},{t},{r}", "rbe2")
        interfaces[name] = "123456" if k % 5 in (0, 2, 4) else "123"  # translations only: spherical joints
    return model, interfaces, 60


def body(kind: str, mesh_path: str) -> dict:
    from reduction import reduce

    model, interfaces, n_modes = _model(kind, mesh_path)
    outputs = model.select(BAR_OUTPUTS)
    flex = reduce(model, interfaces, n_modes, output_nodes=outputs, compare_modes=0)
    return {"dofs": model.n_dofs, "interfaces": len(interfaces), "elastic_coordinates": flex.n_modes,
            "first_elastic_hz": float(flex.frequencies_hz[0]), "reduce_s": flex.report["seconds"]}


def factorization(kind: str, mesh_path: str) -> dict:
    """One PARDISO factorization of the interior stiffness K_ii that the reduction factorizes (wall, CPU)."""
    from fem.linalg import SPDFactor, backend_name
    from reduction.reduce import _boundary_dofs

    model, interfaces, _ = _model(kind, mesh_path)
    boundary, _ = _boundary_dofs(model, interfaces)
    interior = np.setdiff1d(np.arange(model.n_dofs), boundary)
    k_ii = model.stiffness[interior][:, interior].tocsr()
    t0, c0 = time.perf_counter(), time.process_time()
    factor = SPDFactor(k_ii, "K_ii")
    out = {"factor_wall_s": time.perf_counter() - t0, "factor_cpu_s": time.process_time() - c0,
           "backend": backend_name(), "interior_dofs": int(interior.size)}
    solver = getattr(factor, "_solver", None)
    if solver is not None:  # MKL's own report: nonzeros of the factor, peak memory of the factorization (kB)
        out.update(factor_nonzeros=int(solver.iparm[17]), factor_peak_kb=int(max(solver.iparm[14],
                                                                                  solver.iparm[15] + solver.iparm[16])))
    factor.release()
    return out


def whole_command(mesh_path: str, out: str) -> dict:
    """``flexmbs reduce`` of the bar in a child process: wall, CPU (user + system) and peak RSS of the child."""
    cmd = [sys.executable, "-m", "flexmbs", "reduce", mesh_path, "--material", "steel", "-o", out, "--modes", "20",
           "--compare", "0", "--output-nodes", BAR_OUTPUTS, "--force"]
    for name, selector in BAR_INTERFACES.items():
        cmd += ["--interface", f"{name}={selector}:rbe2"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"whole_wall_s": wall, "whole_cpu_s": cpu, "whole_peak_mb": after.ru_maxrss / 1024.0,
            "file_mb": os.path.getsize(out) / 1e6}


def _child(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["bar", "plate"])
    parser.add_argument("--size", type=float, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--once", action="store_true")
    parser.add_argument("--factor", action="store_true")
    parser.add_argument("--whole", default=None, metavar="OUT")
    parser.add_argument("--mesh", default=None)
    args = parser.parse_args()
    if args.once:
        print(json.dumps(measure(body, args.kind, args.mesh)))
        return
    if args.factor:
        print(json.dumps(factorization(args.kind, args.mesh)))
        return
    if args.whole:
        print(json.dumps(whole_command(args.mesh, args.whole)))
        return
    from fem.meshing import bar_mesh

    load_before = os.getloadavg()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{args.kind}.msh")
        if args.kind == "bar":
            bar_mesh(path, size=args.size or 0.0069, order=2)
        else:
            plate_mesh(path, args.size or 0.065)
        for k in range(args.runs):
            row = {"load_1min": os.getloadavg()[0]}
            if args.kind == "bar":
                row.update(_child(["bar", "--mesh", path, "--whole", os.path.join(tmp, "bar.flex.h5")]))
            else:
                row.update(_child([args.kind, "--mesh", path, "--once"]))
            row.update(_child([args.kind, "--mesh", path, "--factor"]))
            runs.append(row)
            print(f"run {k + 1}/{args.runs}: " + ", ".join(f"{key} {value:.3g}" for key, value in row.items()
                                                         if isinstance(value, float)), file=sys.stderr)
    summary = {key: value for key, value in runs[-1].items() if not isinstance(value, float)}
    for key in runs[0]:
        if isinstance(runs[0][key], float):
            summary[key] = statistics.median(r[key] for r in runs)
            summary[key + "_all"] = [round(r[key], 3) for r in runs]
    if args.kind == "bar":
        summary["whole_over_factor_wall"] = summary["whole_wall_s"] / summary["factor_wall_s"]
        summary["whole_over_factor_cpu"] = summary["whole_cpu_s"] / summary["factor_cpu_s"]
    summary.update(runs=args.runs, load_before=[round(x, 2) for x in load_before],
                   load_after=[round(x, 2) for x in os.getloadavg()],
                   machine=f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    if args.kind == "bar":
        print(f"whole flexmbs reduce {summary['whole_wall_s']:.1f} s wall / {summary['whole_cpu_s']:.1f} s CPU, "
              f"{summary['whole_peak_mb'] / 1024:.2f} GB; one K_ii factorization {summary['factor_wall_s']:.2f} s "
              f"wall / {summary['factor_cpu_s']:.2f} s CPU; ratio {summary['whole_over_factor_wall']:.1f}× wall, "
              f"{summary['whole_over_factor_cpu']:.1f}× CPU (medians of {args.runs}; load {summary['load_before'][0]}"
              f" before, {summary['load_after'][0]} after)", file=sys.stderr)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
