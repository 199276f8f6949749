"""Benchmark: Craig–Bampton reduction.

    python benchmarks/reduce.py bar     [--runs 3]   # ~170 000-dof tet10 bar, 2 RBE2 interfaces, 20 modes
    python benchmarks/reduce.py plate   [--runs 3]   # seed 003 §5.1.2 scale: ~140 000 dofs, 20 bores -> ~150 coords

Timed: mesh reading, assembly, spiders, Craig–Bampton (one K_ii factorization), orthonormalization, invariants
and modal stress — everything `reduction.reduce` does except the optional full free–free comparison (compare_modes
= 0), which is a separate modal analysis (benchmarks/fem_modal.py). Mesh generation is not timed.
Target (ARCHITECTURE.md) for the bar: ≤ 45 s and ≤ 3 GB on the 2-core machine.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import measure, repeat_in_subprocesses  # noqa: E402

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


def body(kind: str, mesh_path: str) -> dict:
    from fem.mesh import load_mesh
    from fem.model import solid_model
    from reduction import reduce

    model = solid_model(load_mesh(mesh_path), "steel")
    if kind == "bar":
        model.add_reference_node("a", "box:-1e-9,-1,-1,1e-9,1,1", "rbe2")
        model.add_reference_node("b", "box:0.999999,-1,-1,1.000001,1,1", "rbe2")
        interfaces, n_modes = {"a": "123456", "b": "123456"}, 20
    else:
        interfaces = {}
        r, t = PLATE["bore"] / 2, PLATE["thickness"]
        for k, (x, y) in enumerate(_bore_centres()):
            name = f"bore{k:02d}"
            model.add_reference_node(name, f"cylinder:{x},{y},0,{x},{y},{t},{r}", "rbe2")
            interfaces[name] = "123456" if k % 5 in (0, 2, 4) else "123"  # translations only: spherical joints
        n_modes = 60
    outputs = model.select("box:0.45,-1,-1,0.55,2,1")
    flex = reduce(model, interfaces, n_modes, output_nodes=outputs, compare_modes=0)
    return {"dofs": model.n_dofs, "interfaces": len(interfaces), "elastic_coordinates": flex.n_modes,
            "first_elastic_hz": float(flex.frequencies_hz[0]), "reduce_s": flex.report["seconds"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["bar", "plate"])
    parser.add_argument("--size", type=float, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--once", action="store_true")
    parser.add_argument("--mesh", default=None)
    args = parser.parse_args()
    if args.once:
        print(json.dumps(measure(body, args.kind, args.mesh)))
        return
    from fem.meshing import bar_mesh

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"{args.kind}.msh")
        if args.kind == "bar":
            bar_mesh(path, size=args.size or 0.0069, order=2)
        else:
            plate_mesh(path, args.size or 0.065)
        summary = repeat_in_subprocesses(__file__, [args.kind, "--mesh", path], args.runs)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
