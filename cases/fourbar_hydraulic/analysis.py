"""Post-processing of the four-bar response: settling time and over/under-damped classification."""
from __future__ import annotations

import math

import numpy as np


def response_summary(time, phi2, phi2_eq: float, t_release: float, band: float) -> dict:
    """Characterise the return to equilibrium after the torque is released at ``t_release``.

    Parameters
    ----------
    time : ndarray, s
    phi2 : ndarray, rad
        Input-link angle.
    phi2_eq : float, rad
        Equilibrium angle.
    t_release : float, s
        ``t2`` of seed 002 eq. (92).
    band : float, 1
        Settled once ``|phi2 - phi2_eq|`` stays below ``band`` times its value at ``t_release``.

    Returns
    -------
    dict with ``settling_time_s`` (after ``t_release``; ``None`` if not settled in the run), ``zero_crossings``
    (sign changes of the deviation after release), ``response`` (``"overdamped"`` without crossing, else
    ``"oscillatory"``), ``deflection_at_t2_deg`` and ``final_deviation_deg``. A run that ends before
    ``t_release`` has ``None`` for the quantities after it and ``response`` "not reached: ..." (issue 43: it
    reported 0.0 s and "overdamped").
    """
    time, dev = np.asarray(time), np.asarray(phi2) - phi2_eq
    if time.size == 0 or time[-1] <= t_release:  # the run ends before the release: nothing to report after it
        note = (f"not reached: the run ends at t = {float(time[-1]) if time.size else 0.0:.6g} s, before the torque "
                f"release at t2 = {t_release:.6g} s (raise --t-end)")
        return {"settling_time_s": None, "zero_crossings": None, "response": note, "deflection_at_t2_deg": None,
                "final_deviation_deg": math.degrees(float(dev[-1])) if dev.size else None}
    after = time >= t_release
    t, d = time[after], dev[after]
    d0 = float(np.interp(t_release, time, dev))
    limit = band * abs(d0)
    outside = np.nonzero(np.abs(d) > limit)[0]
    if outside.size == 0:
        settling = 0.0
    elif outside[-1] == d.size - 1:
        settling = None
    else:
        settling = float(t[outside[-1] + 1] - t_release)
    signs = np.sign(d[np.abs(d) > 1e-3 * limit]) if d.size else np.zeros(0)
    crossings = int(np.count_nonzero(np.diff(signs) != 0)) if signs.size > 1 else 0
    return {"settling_time_s": settling, "zero_crossings": crossings,
            "response": "overdamped" if crossings == 0 else "oscillatory",
            "deflection_at_t2_deg": math.degrees(d0), "final_deviation_deg": math.degrees(float(dev[-1]))}
