"""``flexmbs linearize compactor``: the machine standing at rest on its drums (the ``static`` scenario's model:
exciter and drum drives at rest) about its static equilibrium: the rigid-body modes on the soil and the silent
blocs (and the drives' speed-source damping)."""
from __future__ import annotations

__all__ = ["linearization"]


def linearization(params: dict | None = None) -> dict:
    """The hook's dict: the model at rest (scenario ``static``) about its static equilibrium; output the chassis
    height."""
    from .machine import build_machine
    from .simulation import parameters

    p = parameters({**(params or {}), "scenario": "static"})
    tm, _ = build_machine(p, support=p["support"])
    return {"model": tm.model, "at": "static", "inputs": {}, "outputs": {}}
