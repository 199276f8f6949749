"""The same mesh gives the same modes on every CPU: reductions under different OpenBLAS kernels and thread counts.

OpenBLAS picks its kernels by CPU at run time (``OPENBLAS_CORETYPE`` forces one), and a kernel or a thread count
changes the rounding, hence the signs of eigenvectors and the basis chosen inside a degenerate eigenspace. The
canonical form of :mod:`fem.canonical` must make the modes, the modal stresses and the full-model modes equal to
round-off: 1e-8 relative to the largest component (measured: ≈ 1e-11). Square sections give (near-)degenerate
bending pairs: exact ones on the structured hexahedron bar, split by the mesh's asymmetry on the tetrahedron bar.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from fem.canonical import CONVENTION_VERSION, mode_groups
from fem.meshing import bar_mesh

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = [("Haswell", 1), ("Prescott", 1), ("Prescott", 2)]  # both kernels, both thread counts

CHILD = r"""
import json, sys
import numpy as np
from threadpoolctl import threadpool_info
from fem.analysis import modal_analysis
from fem.mesh import load_mesh
from fem.meshing import structured_bar_mesh
from fem.model import solid_model
from reduction import reduce
from reduction.craig_bampton import craig_bampton

tet_path, out = sys.argv[1], sys.argv[2]
data = {}
for name, mesh in (("hex", structured_bar_mesh(1.0, 0.05, 0.05, 16, 2, 2)), ("tet", load_mesh(tet_path))):
    model = solid_model(mesh, "steel")
    model.add_reference_node("a", model.select("box:-0.001,-1,-1,0.001,1,1"), "rbe2")
    model.add_reference_node("b", model.select("box:0.999,-1,-1,1.001,1,1"), "rbe2")
    body = reduce(model, ["a", "b"], 8, output_nodes=np.arange(0, mesh.n_nodes, 5), compare_modes=0)
    boundary = np.concatenate([model.independent_index(model.node_dofs(model.references[n].node)) for n in "ab"])
    cb = craig_bampton(model, boundary, 8)
    data.update({f"{name}_translations": body.translations, f"{name}_rotations": body.rotations,
                 f"{name}_stress": body.modal_stress, f"{name}_hz": body.frequencies_hz,
                 f"{name}_fixed_interface": cb.basis[:, :8], f"{name}_fixed_hz": cb.fixed_interface_hz,
                 f"{name}_convention": body.report["canonical_modes_version"]})
    if name == "hex":
        full = modal_analysis(model, 12)  # six rigid-body modes (one group) and two bending pairs
        data.update({"hex_full_modes": full.modes, "hex_full_hz": full.frequencies_hz,
                     "hex_positions": model.positions})
np.savez(out, **data)
print(json.dumps([(i["internal_api"], i.get("architecture"), i["num_threads"]) for i in threadpool_info()
                  if i["user_api"] == "blas"]))
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("determinism")
    tet = bar_mesh(str(folder / "bar.msh"), size=0.04, order=1)  # meshed once: gmsh is not under test
    procs = []
    for coretype, threads in RUNS:
        out = str(folder / f"{coretype}-{threads}.npz")
        env = dict(os.environ, OPENBLAS_CORETYPE=coretype, OPENBLAS_NUM_THREADS=str(threads),
                   OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
                   PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
        procs.append((out, subprocess.Popen([sys.executable, "-c", CHILD, tet, out], env=env, cwd=ROOT,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    results = []
    for out, proc in procs:
        stdout, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, stderr[-2000:]
        results.append((json.loads(stdout.strip().splitlines()[-1]), dict(np.load(out))))
    return results


def _relative_difference(a, b):
    return float(np.abs(a - b).max() / np.abs(a).max())


def test_children_ran_under_different_blas_kernels_and_thread_counts(runs):
    blas = [info for info, _ in runs]
    openblas = [[a for api, a, _ in info if api == "openblas"] for info in blas]
    if all(openblas):  # OpenBLAS honours OPENBLAS_CORETYPE on x86: the children really used different kernels
        assert len({a[0] for a in openblas}) >= 2, blas
    assert {max(n for _, _, n in info) for info in blas} >= {1, 2}, blas


@pytest.mark.parametrize("mesh", ["hex", "tet"])
def test_canonical_modes_and_modal_stress_agree_across_kernels(runs, mesh):
    """Elastic modes, rotations, modal stress, fixed-interface modes: equal to 1e-8 of the largest component
    (raw solver output differs by O(1) here: signs and the orientation of the degenerate pairs)."""
    _, first = runs[0]
    assert int(first[f"{mesh}_convention"]) == CONVENTION_VERSION
    for _, other in runs[1:]:
        assert np.allclose(other[f"{mesh}_hz"], first[f"{mesh}_hz"], rtol=1e-9)
        assert np.allclose(other[f"{mesh}_fixed_hz"], first[f"{mesh}_fixed_hz"], rtol=1e-9)
        for key in ("translations", "rotations", "stress", "fixed_interface"):
            diff = _relative_difference(first[f"{mesh}_{key}"], other[f"{mesh}_{key}"])
            assert diff < 1e-8, (mesh, key, diff)


def test_square_sections_have_degenerate_pairs_aligned_with_the_axes(runs):
    """The structured square bar's bending pairs are exact (relative gap ~1e-13) and come out as bending in y, then
    bending in z (the probe rule): on the bar's axis (y = z = 0, where the anticlastic Poisson displacement of the
    section vanishes) the y-bending mode moves along y only and the z-bending mode along z only. Each mode's deciding
    (largest, first of the tied) translation is positive."""
    _, first = runs[0]
    hz = first["hex_hz"]
    pairs = [g for g in mode_groups((2 * np.pi * hz) ** 2) if g.size == 2]
    assert len(pairs) >= 2  # first and second bending pairs
    positions = first["hex_positions"][: first["hex_translations"].shape[0]]
    axis = np.flatnonzero(np.all(np.abs(positions[:, 1:]) < 1e-12, axis=1))
    assert axis.size >= 10
    for pair in pairs[:2]:
        shapes = first["hex_translations"][axis][:, :, pair]  # (n_axis, 3, 2)
        y_mode, z_mode = np.abs(shapes[:, :, 0]).max(axis=0), np.abs(shapes[:, :, 1]).max(axis=0)
        assert y_mode[2] < 1e-8 * y_mode[1] and z_mode[1] < 1e-8 * z_mode[2], (y_mode, z_mode)
    flat = first["hex_translations"].reshape(-1, hz.size)
    deciding = np.argmax(np.abs(flat) >= (1.0 - 1e-6) * np.abs(flat).max(axis=0), axis=0)  # first of the tied
    assert np.all(flat[deciding, np.arange(hz.size)] > 0.0)


def test_full_model_modes_agree_across_kernels(runs):
    """fem.modal_analysis: the six rigid-body modes (one group) and the degenerate pairs in canonical form."""
    _, first = runs[0]
    for _, other in runs[1:]:
        diff = _relative_difference(first["hex_full_modes"], other["hex_full_modes"])
        assert diff < 1e-8, diff
