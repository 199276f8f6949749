"""``flexmbs linearize spin-up-beam``: the beam at rest on its hub before the spin-up (t = 0, hub angle and rate
zero): a cantilever, whose eigenvalues are ``±i ω_k`` of its bending and axial modes (Euler-Bernoulli cantilever:
``ω₁ = 1.8751² √(EI / (ρA L⁴))``)."""
from __future__ import annotations

__all__ = ["linearization"]


def linearization(params: dict | None = None) -> dict:
    """The hook's dict: the model about its static equilibrium at t = 0, output the tip's deflection."""
    from . import build_model, parameters

    p = parameters(params)
    return {"model": build_model(p), "at": "static", "inputs": {},
            "outputs": {"tip_y": "marker/tip/position/y"}}
