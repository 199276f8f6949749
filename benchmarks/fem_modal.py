"""Benchmark: FE assembly + 20 free–free modes of a ~170 000-dof quadratic-tetrahedron steel bar.

    python benchmarks/fem_modal.py [--size 0.007] [--runs 3]

Mesh generation (gmsh) is outside the timed region; the timed region is reading the mesh, assembling K and M
with scikit-fem and solving 26 modes (6 rigid + 20 elastic) by shift-invert Lanczos.
Target (ARCHITECTURE.md): ≤ 40 s and ≤ 3 GB on the 2-core machine.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from _harness import measure, repeat_in_subprocesses  # noqa: E402


def body(mesh_path: str) -> dict:
    from fem.analysis import modal_analysis
    from fem.mesh import load_mesh
    from fem.model import solid_model

    mesh = load_mesh(mesh_path)
    model = solid_model(mesh, "steel")
    result = modal_analysis(model, 26)
    return {"dofs": model.n_dofs, "first_elastic_hz": float(result.frequencies_hz[6]),
            "modes": int(result.frequencies_hz.size)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=float, default=0.0069)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--once", action="store_true")
    parser.add_argument("--mesh", default=None)
    args = parser.parse_args()
    if args.once:
        print(json.dumps(measure(body, args.mesh)))
        return
    from fem.meshing import bar_mesh

    with tempfile.TemporaryDirectory() as tmp:
        mesh = bar_mesh(os.path.join(tmp, "bar.msh"), size=args.size, order=2)
        summary = repeat_in_subprocesses(__file__, ["--mesh", mesh], args.runs)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
