"""``flexmbs linearize slider-crank``: the mechanism about its motion at ``LINEARIZATION_TIME`` of a run (the
crank turning at its prescribed speed, or driven by its torque): the flexible link's modes about the moving
reference (seed 002 minimal coordinates; with the speed drive the crank angle is prescribed, the remaining
coordinates are the link's elastic ones)."""
from __future__ import annotations

__all__ = ["linearization", "LINEARIZATION_TIME"]

LINEARIZATION_TIME = 0.05  # s: a quarter turn of the crank at the default 30 rad/s


def linearization(params: dict | None = None) -> dict:
    """The hook's dict: the model at ``LINEARIZATION_TIME`` of a run, output the slider position."""
    from .model import build_model, parameters

    p = parameters(params or {})
    return {"model": build_model(p), "at": LINEARIZATION_TIME,
            "simulate_options": {"rtol": float(p["rtol"]), "atol": float(p["atol"])}, "inputs": {},
            "outputs": {"slider_x": "body/slider/position/x"}}
