"""Machine creeping (seed 003 ch. 5): building blocks of the case.

:mod:`.creep` holds the force ratio R(t) and the rigid-machine-on-Coulomb-pads displacement model of Table 5-2;
:mod:`.structure` the stand-in flexible structure (clamp base + stationary platen + tie bars) and its reduction.
The case itself (``NAME``, ``run``) is not registered yet: see docs/cases/machine-creeping.md.
"""
