"""``StopAfter.evaluate`` (:mod:`.hydraulic`, the emergency stop: the valve command dropped to 0 V at the stop
time, seed 003 L7668-7671) as a signal kernel for the circuit's compiled step (issue 26;
:data:`hydraulics.signal_kernels.SIGNAL_SIGNATURE`): ``fpar`` the stop time, ``ipar`` the inner command's slot
in the signal vector.
"""
from __future__ import annotations

from numba import carray

from flexmbs_jit import cfunc

from hydraulics.kernel import HEAD
from hydraulics.signal_kernels import SIGNAL_SIGNATURE


@cfunc(SIGNAL_SIGNATURE, cache=True)
def stop_after_kernel(want, t, z_, y_, ydot_, sv_, fpar_, ipar_, i, rates_, out_):
    """0 from the stop time on, the inner command before it."""
    head = carray(ipar_, HEAD)
    ipar, fpar, sv = carray(ipar_, head[6]), carray(fpar_, head[7]), carray(sv_, head[10])
    return 0.0 if t >= fpar[ipar[i + 1]] else sv[ipar[i + 2]]
