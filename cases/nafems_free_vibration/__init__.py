"""Case ``nafems-free-vibration``: NAFEMS R0015 free-vibration benchmarks FV12, FV22, FV32 and FV52 with solid
elements (issue 29) — the trust rows of the user-FE route (modal analysis, supports of single dofs, eigen-solver).

``flexmbs run nafems-free-vibration --set benchmark=fv52`` computes one benchmark's target modes on its documented
mesh (``--set refinement=2`` doubles the elements in every direction); ``flexmbs validate --case
nafems-free-vibration`` lists all of them against the published targets (:mod:`.validation`). Meshes, supports and
targets: :mod:`.benchmarks`; results and the reasons of the deviations: docs/user-fe-models.md.
"""
from __future__ import annotations

import time

from cases._common import case_parameters, toml_defaults

from .benchmarks import TARGETS, frequencies, mesh_text

NAME = "nafems-free-vibration"
DESCRIPTION = ("NAFEMS free-vibration benchmarks FV12, FV22, FV32, FV52 with 27-node hexahedra (--set benchmark=fv52 "
               "--set refinement=2); a modal analysis, no time integration")
DEFAULTS = toml_defaults(__file__, "nafems_free_vibration.toml")
PARAMETERS = DEFAULTS.specs


parameters = case_parameters(NAME, DEFAULTS, {"benchmark": tuple(TARGETS)})


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Modal analysis of one benchmark; outputs: its target modes (Hz), the targets, the mesh. ``t_end`` and
    ``out`` do not apply (no time integration): ``t_end`` and ``steps`` are reported as 0."""
    p = parameters(params)
    name = p["benchmark"]
    wall0 = time.perf_counter()
    found, n_dofs = frequencies(name, int(p["refinement"]))
    title, targets, modes, origin = TARGETS[name]
    return {"case": NAME, "t_end": 0.0, "steps": 0, "wall_s": time.perf_counter() - wall0,
            "max_constraint_violation": 0.0,
            "outputs": {"benchmark": name, "title": title, "mesh": mesh_text(name, int(p["refinement"])),
                        "dofs": n_dofs, "nafems_modes": list(modes), "frequencies_hz": [float(f) for f in found],
                        "targets_hz": targets, "origin": origin}}


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize nafems-free-vibration``: the benchmark's structure as one flexible body
    (:mod:`.linear`): eigenvalues ``±i ω`` of its modes, rigid-body zeros where it is free."""
    from .linear import linearization as hook

    return hook(parameters(params))
