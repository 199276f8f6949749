"""Flexible connecting bars: gmsh mesh → solid FE model → Craig–Bampton reduction, cached (seed 003 §3.2.1.2).

Each bar is a quadratic-tetrahedron mesh of :func:`fem.meshing.connecting_bar_mesh`; the bearing centres are
6-dof reference nodes tied to the bore surfaces by RBE2 spiders (the stiff, light beams of seed 003 Fig. 3-5);
12 static (constraint) modes + 13 fixed-interface normal modes = 25 Craig–Bampton coordinates, 19 elastic after
orthonormalization and rigid-mode removal; 1 % modal damping. One stress output node on the shank surface and
modal stress on every surface node (the stress field for hot spots, fatigue and stress animations).

The three bars share one geometry and so one reduction, cached as ``<cache>/clamp-locking-bar-<key>.flex.h5``
(``$FLEXMBS_CACHE`` or ``~/.cache/flexmbs``; ``<key>``: :func:`cache_key`, so a changed parameter re-reduces) and
kept in memory per process (``_BODIES``: a study worker reduces or reads the bar once for all its variants); a lock
on the cache folder makes concurrent workers wait for one reduction; ``CACHE_STATS`` counts reductions (and their
wall time), file reads and in-memory reuses of this process (docs/studies.md). The stiffness study (seed 003
Table 3-3 scales the E-modulus) does not re-reduce: :func:`scaled_stiffness` (exact; docs/cases/clamp-locking.md).
"""
from __future__ import annotations

import copy
import dataclasses
import fcntl
import hashlib
import json
import os
import sys
import time

import numpy as np

from flexmbs.results.cache import cache_dir, drop_damaged  # cache_dir: $FLEXMBS_CACHE or ~/.cache/flexmbs

CACHE_VERSION = 3  # 3: canonical mode shapes (fem.canonical)
GEOMETRY_KEYS = ("bar_length", "bar_width", "bar_height", "eye_diameter", "bore_diameter", "mesh_size",
                 "fixed_interface_modes", "modal_damping", "youngs_modulus", "poisson_ratio", "density",
                 "stress_node_fraction")
CACHE_STATS = {"reduced": 0, "read": 0, "reused": 0, "reduce_s": 0.0}  # this process
_BODIES: dict = {}  # cache file → FlexBody, this process


def cache_key(params: dict) -> str:
    """16 hex digits of the SHA-256 of the geometry, mesh and reduction settings."""
    settings = {k: params[k] for k in GEOMETRY_KEYS}
    settings.update({"element_order": 2, "interfaces": {"a": "123456", "b": "123456"}, "spider": "rbe2",
                     "version": CACHE_VERSION, "stress_field": "surface"})  # stress_field: reduction.stressfield
    if params.get("bar_geometric_stiffness"):  # only then: the cache files of earlier runs stay valid
        settings["geometric_stiffness"] = True
    text = json.dumps(settings, sort_keys=True, default=float)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def stress_node_target(params: dict) -> np.ndarray:
    """Point (3,) m of the stress output node: shank edge (y = +w/2, z = +h/2) at ``stress_node_fraction`` of L."""
    return np.array([params["stress_node_fraction"] * params["bar_length"], 0.5 * params["bar_width"],
                     0.5 * params["bar_height"]])


def reduce_bar(params: dict, mesh_path: str, progress=None):
    """Mesh, assemble and reduce one bar; returns the FlexBody (report included)."""
    from fem.materials import Material
    from fem.mesh import load_mesh
    from fem.meshing import connecting_bar_mesh
    from fem.model import solid_model
    from reduction import reduce

    say = progress or (lambda message: None)
    say(f"meshing the connecting bar (size {params['mesh_size']} m)")
    connecting_bar_mesh(mesh_path, length=params["bar_length"], width=params["bar_width"],
                        height=params["bar_height"], eye_diameter=params["eye_diameter"],
                        bore_diameter=params["bore_diameter"], size=params["mesh_size"], order=2)
    mesh = load_mesh(mesh_path)
    material = Material(params["youngs_modulus"], params["poisson_ratio"], params["density"], "bar steel")
    model = solid_model(mesh, material)
    # the bearing centres exactly on the bar axis (the centroid of a tetrahedral bore surface is off by ~0.1 mm,
    # which would preload the mechanism against its end stop at assembly)
    model.add_reference_node("a", "group:bore_a", "rbe2", point=(0.0, 0.0, 0.0))
    model.add_reference_node("b", "group:bore_b", "rbe2", point=(params["bar_length"], 0.0, 0.0))
    target = stress_node_target(params)
    stress_node = int(np.argmin(np.linalg.norm(mesh.points - target, axis=1)))
    say(f"Craig–Bampton reduction of {model.n_dofs} dofs: 12 static + {params['fixed_interface_modes']} "
        "fixed-interface modes")
    return reduce(model, {"a": "123456", "b": "123456"}, int(params["fixed_interface_modes"]),
                  output_nodes=[stress_node], damping=params["modal_damping"], name="connecting_bar",
                  progress=say, stress_field="surface",
                  geometric_stiffness=bool(params.get("bar_geometric_stiffness", False)))


def reduced_bar(params: dict, progress: bool = False):
    """The reduced bar for ``params`` from the cache (reducing and caching it on first use), E-scaled.

    Returns
    -------
    FlexBody
        With ``stiffness_scale`` applied (:func:`scaled_stiffness`); ``report["cache_file"]`` names the file.
    """
    path = os.path.join(cache_dir(), f"clamp-locking-bar-{cache_key(params)}.flex.h5")
    if path in _BODIES:
        CACHE_STATS["reused"] += 1
        body = _BODIES[path]
    else:
        body = _BODIES[path] = _cached_bar(params, path, progress)
    return scaled_stiffness(body, params["stiffness_scale"])


def _cached_bar(params: dict, path: str, progress: bool):
    """Read the cache file, reducing and writing it first if it is missing (one process at a time)."""
    from reduction.io import read_flexbody, write_flexbody

    folder = os.open(os.path.dirname(path), os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # another worker reducing a bar into this cache: wait for its file
        drop_damaged(path)  # a damaged entry is rebuilt, with a note
        if not os.path.exists(path):
            def say(message):
                if progress:
                    print(f"clamp-locking: {message}", file=sys.stderr)

            start = time.perf_counter()
            body = reduce_bar(params, path[:-len(".flex.h5")] + f".{os.getpid()}.msh", say)
            part = f"{path}.{os.getpid()}.part.flex.h5"
            write_flexbody(body, part, source={"case": "clamp-locking", "settings": cache_key(params)})
            os.replace(part, path)
            os.remove(path[:-len(".flex.h5")] + f".{os.getpid()}.msh")
            CACHE_STATS["reduced"] += 1
            CACHE_STATS["reduce_s"] += time.perf_counter() - start
    finally:
        os.close(folder)  # closing the descriptor releases the lock
    body = read_flexbody(path)
    CACHE_STATS["read"] += 1
    body.report["cache_file"] = path
    return body


def scaled_stiffness(body, scale: float):
    """A copy of ``body`` with the E-modulus scaled by ``scale``. Mesh, ν and ρ unchanged, ``K ∝ E``: the
    mass-orthonormal modes and the invariants stay, the frequencies scale by √scale, the modal stresses and the
    geometric stiffness of the modal deformation by scale (its stress is E times a strain), while that of the
    inertia loads stays (held interfaces: their stress does not depend on E)."""
    if scale == 1.0:
        return body
    out = copy.copy(body)
    out.frequencies_hz = np.asarray(body.frequencies_hz) * np.sqrt(scale)
    out.modal_stress = np.asarray(body.modal_stress) * scale
    geometric = getattr(body, "geometric_stiffness", None)
    if geometric is not None:
        out.geometric_stiffness = dataclasses.replace(geometric, deformation=geometric.deformation * scale)
    if body.stress_field is not None:
        out.stress_field = body.stress_field.scaled(scale)
    return out


def frequency_check(body, n_check: int = 6) -> dict:
    """Reduced vs full free–free elastic frequencies of the reduction report (first ``n_check``): Hz, rel. error."""
    reduced = np.asarray(body.report["reduced_hz"], dtype=float)[:n_check]
    full = np.asarray(body.report["full_free_free_hz"], dtype=float)[:n_check]
    return {"reduced_hz": reduced, "full_hz": full, "relative_error": np.abs(reduced / full - 1.0)}
