"""The tutorial's crane as a flexmbs case (docs/tutorial.md, 'Your crane as a case').

Copy ``crane.py`` and this file into a package folder (``my_cranes/`` with an empty ``__init__.py``), declare the
entry point in its ``pyproject.toml`` (README, "Your own case")::

    [project.entry-points."flexmbs.cases"]
    crane = "my_cranes.crane_case"

and after ``pip install -e .``: ``flexmbs cases crane``, ``flexmbs run crane --set payload=150``,
``flexmbs study crane --vary payload=50,100,150 --vary lift=0.03,0.05``.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time

try:  # inside the package
    from . import crane
except ImportError:  # run from the examples folder
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import crane

NAME = "crane"
DESCRIPTION = "Hydraulic crane: flexible boom, payload on a hinge, cylinder, 4/3 datasheet valve, position control"
DEFAULTS = dict(crane.DEFAULTS)
BODY_KEYS = ("boom_length", "boom_section", "mesh_size", "n_modes", "damping", "lug_x")  # what the boom file holds


def body_file(p: dict) -> str:
    """The reduced boom in the flexmbs cache (``$FLEXMBS_CACHE`` or ``~/.cache/flexmbs``), made once per design."""
    from flexmbs.results.cache import cache_dir

    key = hashlib.sha256(json.dumps({k: p[k] for k in BODY_KEYS}, sort_keys=True).encode()).hexdigest()[:12]
    folder = os.path.join(cache_dir(), f"crane-boom-{key}")
    os.makedirs(folder, exist_ok=True)
    return crane.boom_body(p, folder)


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Run the lift; returns the case summary (its ``outputs`` become the columns of a study table)."""
    import flexmbs as fm

    wall0 = time.perf_counter()
    p = crane.parameters(params)
    if t_end is not None:
        p["t_end"] = float(t_end)
    res = fm.simulate(crane.build_model(p, body_file(p)), p["t_end"], output=out, max_step=5e-3, case=NAME,
                      parameters=p, progress=progress)
    if not res.success:
        raise fm.SimulationError(f"{NAME}: {res.message}")
    stats = res.statistics
    return {"case": NAME, "t_end": float(res.time[-1]), "steps": int(stats.get("steps", 0)),
            "wall_s": time.perf_counter() - wall0,
            "max_constraint_violation": float(stats.get("max_constraint_violation", 0.0)),
            "outputs": {"load_pressure_bar": crane.load_pressure(res, p) / 1e5,
                        "hand_load_pressure_bar": crane.hand_checks(p)["load_pressure_pa"] / 1e5,
                        "max_pressure_A_bar": float(res["element/hydraulics/A.pressure"].max()) / 1e5}}
