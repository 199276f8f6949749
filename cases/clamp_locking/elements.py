"""The roll lock of the connecting bars: a joint the flexmbs library does not have.

:class:`RollLock` is the "motion" of seed 003 §3.2.1.1 that stops a connecting bar spinning about its own axis
between two spherical bearings: one perpendicularity equation (Haug's dot-1). flexmbs can prescribe joint
coordinates of revolute, prismatic and cylindrical joints only, so the case defines this one-equation joint.
"""
from __future__ import annotations

from flexmbs.model.joints import Joint


class RollLock(Joint):
    """``z_i ⟂ y_j``: keeps marker j's ``y`` axis normal to marker i's ``z`` axis (1 equation).

    With ``z_i`` the tie-bar axis on the piston and ``y_j`` the in-plane transverse axis of the bar at its bearing,
    the bar may swing in and out of the platen plane but cannot roll about its own axis.
    """

    PRIMITIVES = (("dot1", 2, 1),)  # evaluated with the system's vectorized joint rows (base_rows, n_base from it)
