"""Validation rows of the compactor (``flexmbs validate``): seed 004 has no measured numbers for the estimator, so
its checks are verification: a static moment balance (analytic) and round trips of the estimator of eq. (19)-(22)
against the simulated contact wrench it must recover; the rigid-support harmonic load ``m_e e ω²`` (analytic)."""
from __future__ import annotations

import numpy as np

from flexmbs.catalog.validation import row, skipped_rows


def static_rows(quick: bool = True) -> list:
    """At rest on flat ground (symmetric silent blocs): the estimate equals the moment-balance front load."""
    from .estimator import estimate_contact, identified_parameters
    from .machine import static_front_load
    from .simulation import parameters, sensor_signals, simulate_scenario

    p = parameters({"scenario": "static", "rear_silent_blocs": True, "output_interval": 0.005})
    res, tm, parts = simulate_scenario(p, t_end=0.01)
    s, _ = sensor_signals(res, tm, parts)
    est = estimate_contact(s, identified_parameters(parts["params"]))
    load = static_front_load(p)
    return [row("front-drum load estimate along z17 (eq. 19-22)", load, float(np.mean(est["FX"])), kind="analytic",
                origin="moment balance W_f = (m_unit + m_ch a/D) g", unit="N", tolerance=1e-6,
                note="1e-6: the two 1e-3 kg virtual links are the only model difference"),
            row("longitudinal estimate at rest", 0.0, float(np.abs(est["FY"]).max()), kind="analytic",
                origin="no horizontal load on flat ground", unit="N", relative=False, tolerance=1e-6 * load)]


def harmonic_rows(quick: bool = False) -> list:
    """Rigid support, 50 Hz exciter: the estimated FX, FY amplitudes equal m_e e ω² (0.3 s run)."""
    if quick:
        return skipped_rows([("FX amplitude at 50 Hz, rigid support", None, "N"),
                             ("FY amplitude at 50 Hz, rigid support", None, "N")], kind="analytic",
                            origin="m_e e ω² (centrifugal force of the exciter)",
                            reason="not run (quick): a 0.3 s vibrating run at rtol 1e-4")
    from .estimator import estimate_contact, identified_parameters
    from .simulation import amplitude_at, parameters, sensor_signals, simulate_scenario

    p = parameters({"scenario": "vibrating", "support": "rigid", "exciter_ramp": 0.1, "rtol": 1e-4, "atol": 1e-6})
    res, tm, parts = simulate_scenario(p, t_end=0.3)
    s, _ = sensor_signals(res, tm, parts)
    est = estimate_contact(s, identified_parameters(parts["params"]))
    force = p["eccentric_moment"] * (2.0 * np.pi * p["exciter_frequency"]) ** 2
    return [row(f"{key} amplitude at 50 Hz, rigid support", force,
                amplitude_at(res.time, est[key], p["exciter_frequency"], 0.15), kind="analytic",
                origin="m_e e ω² (centrifugal force of the exciter)", unit="N", tolerance=0.01,
                note="residual drum motion on the 1.4 kHz support ~0.1 %, exciter velocity error ~0.5 %")
            for key in ("FX", "FY")]


def round_trip_rows(quick: bool = False) -> list:
    """Vibrating on soil, ideal sensors: RMS of estimate - simulated contact wrench against its amplitude."""
    keys = ("FX", "FY", "CZ21", "CZ22")
    if quick:
        return skipped_rows([(f"{k} RMS error / amplitude, vibrating", 0.0, "1") for k in keys],
                            kind="analytic", origin="simulated contact wrench (the estimator must recover it)",
                            reason="not run (quick): a 0.3 s vibrating run")
    from .estimator import identified_parameters
    from .simulation import compare, parameters, sensor_signals, simulate_scenario

    p = parameters({"scenario": "vibrating", "exciter_ramp": 0.1})
    res, tm, parts = simulate_scenario(p, t_end=0.3)
    s, truth = sensor_signals(res, tm, parts)
    out = compare(s, truth, identified_parameters(parts["params"]), res.time, p)["stats"]
    return [row(f"{k} RMS error / amplitude, vibrating", 0.0, out[f"{k}_rms_error"] / out[f"{k}_amplitude"],
                kind="analytic", origin="simulated contact wrench (the estimator must recover it)", relative=False,
                tolerance=0.01, note="1 %: consistent accelerations of index-3 generalized-alpha") for k in keys]


CHECKS = [("static load (moment balance)", static_rows, True), ("rigid-support harmonic", harmonic_rows, False),
          ("estimator round trip", round_trip_rows, False)]
