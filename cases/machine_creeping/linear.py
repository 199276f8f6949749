"""``flexmbs linearize machine-creeping``: the whole machine (flexible clamp unit on its pads, moving platen on its
sliding contacts and guides, the stroke drive idle) about its state after ``SETTLE_TIME`` of rest, the state of
:mod:`.modes` (the "clamp-unit mode" of seed 003 L7568-7582, measured at 8.2 Hz)."""
from __future__ import annotations

__all__ = ["linearization", "SETTLE_TIME"]

SETTLE_TIME = 0.3  # s of rest before the linearization (the pads' contact forces settle)


def linearization(params: dict | None = None) -> dict:
    """The hook's dict: the machine with its drive idle, at ``SETTLE_TIME``."""
    from . import parameters
    from .machine import build_machine
    from .structure import reduced_structure

    p = parameters(params)
    p["start_time"] = 1e9  # the drive stays idle
    model, _ = build_machine(reduced_structure(p), p, "normal-cycle")
    return {"model": model, "at": SETTLE_TIME, "simulate_options": {"rtol": p["rtol"], "atol": 1e-6},
            "inputs": {}, "outputs": {}}
