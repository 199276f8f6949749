"""Inputs of a model: named scalars that the caller of a stepping run sets between advances (issue 41 item 3).

An :class:`Input` is a function of time that holds its value: use it wherever a number or a function of time is
accepted (a :class:`~flexmbs.model.forces.JointActuator` load, a ``hydraulics.TimeFunction`` of a circuit, ...).
:class:`flexmbs.engine.stepping.Run` finds the inputs of a model and sets them with ``run.set_input(name, value)``;
the value is held constant over each ``run.advance_to(t)`` (a zero-order hold, as an FMU's ``doStep`` holds its
inputs). On the compiled step an input is one slot of the plan's signal array, written by Python between advances
and read by the compiled step; it costs nothing per step.
"""
from __future__ import annotations

import math
import weakref

from fem.errors import ModelError

__all__ = ["Input"]


class Input:
    """A named scalar input, held constant between two settings.

    Parameters
    ----------
    name : str
        The name ``run.set_input`` and an FMU use (letters, digits, ``_``, ``.``, ``/``).
    unit : str
        Unit of the value (SI, e.g. ``"N"``, ``"N*m"``, ``"Pa"``, ``"1"``).
    start : float
        Value at t = 0 (and whenever a run starts).
    description : str
        Free text (an FMU's variable description).

    Calling the input with a time returns its present value: ``Input("u", "N", 2.0)(t) == 2.0``.
    """

    # the inputs alive in this process: a run searches a model for inputs only while some exist (the search walks
    # the model's objects: 2-4 ms, as long as a short run)
    live: "weakref.WeakSet[Input]" = weakref.WeakSet()

    def __init__(self, name: str, unit: str = "", start: float = 0.0, description: str = ""):
        Input.live.add(self)
        if not isinstance(name, str) or not name or any(not (c.isalnum() or c in "_./") for c in name):
            raise ModelError(f"an input name is letters, digits, '_', '.' or '/', got {name!r}")
        self.name, self.unit, self.description = name, str(unit), str(description)
        self.start = self._checked(start)
        self.value = self.start

    def _checked(self, value) -> float:
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"input {self.name!r} takes a number, got {value!r}") from None
        if not math.isfinite(value):
            raise ModelError(f"input {self.name!r} takes a finite number, got {value}")
        return value

    def set(self, value) -> float:
        """Set the held value (checked: a finite number); returns it."""
        self.value = self._checked(value)
        return self.value

    def __call__(self, t) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"Input({self.name!r}, {self.unit!r}, start={self.start:g})"
