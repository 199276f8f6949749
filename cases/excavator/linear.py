"""``flexmbs linearize excavator``: the digging model (mechanism, three circuits, soil force) about its state at
``LINEARIZATION_TIME`` of the digging task (stick valve opening, bucket in the air): no static equilibrium is
unique there (the closed-centre valves trap the chamber pressures)."""
from __future__ import annotations

__all__ = ["linearization", "LINEARIZATION_TIME"]

LINEARIZATION_TIME = 0.5  # s of the digging task


def linearization(params: dict | None = None) -> dict:
    """The hook's dict: the rigid-boom digging model at ``LINEARIZATION_TIME``; outputs the stick cylinder's
    chamber pressures are left to ``--output``."""
    from fem.errors import ModelError

    from . import parameters
    from .scenarios import build_digging, build_free_fall

    p = parameters(params)
    scenario = p["scenario"]
    if scenario == "digging-flexible-boom":
        raise ModelError("excavator: linearize is defined for the rigid-boom scenarios (free-fall, free-fall-light, "
                         "digging, digging-load-sensing), got scenario=digging-flexible-boom")
    if scenario.startswith("free-fall"):
        model, _ = build_free_fall(p, light=scenario == "free-fall-light")
        rtol = p["rtol_free_fall"]
    else:
        model, _ = build_digging(p)
        rtol = p["rtol"]
    return {"model": model, "at": LINEARIZATION_TIME,
            "simulate_options": {"rtol": rtol, "atol": p["atol"], "max_step": p["max_step"]},
            "inputs": {}, "outputs": {}}
