"""Run a machine-creeping scenario and derive its outputs: the pad force ratio R(t) and its peak (seed 003
L7600-7678), the dominant frequency of the lateral pad force (the 8.2 Hz clamp-unit mode, L7531-7582) and the
displacement per cycle vs floor μ (Table 5-2, L7680-7722) from the computed histories.
"""
from __future__ import annotations

import time

import numpy as np

from .creep import displacement_table, force_ratio
from .hydraulic import drive_histories
from .machine import SCENARIOS, build_machine
from .structure import reduced_structure

# s, simulated time of each scenario (assumed: the event plus ≥ 0.2 s of ringing; the normal cycle's mould contact
# is at 5.70 s with the hydraulic drive, 5.4 s with the servo stand-in, see docs/cases/machine-creeping.md)
T_END = {"normal-cycle": 5.9, "emergency-stop": 2.5, "impact": 2.3}
TABLE_MU = (0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2)  # seed 003 Table 5-2 rows
HIGH_PASS_HZ = 2.0  # Hz, assumed: removes the stroke profile (< 1 Hz) before the spectrum
PEAK_SEARCH_HZ = 4.0  # Hz, peaks are searched from twice the high-pass corner (the filter passes > 99 % there);
# at the corner itself the filtered stroke profile leaks through (a maximum at 2.7 Hz that is no machine mode)


def run_scenario(p: dict, t_end: float | None = None, out: str | None = None, progress: bool = False,
                 cache: str | None = None) -> dict:
    """Reduce (cached) the structure, build the machine, integrate the scenario ``p["scenario"]``, analyse."""
    import flexmbs as fm

    wall0 = time.perf_counter()
    structure = reduced_structure(p, progress=progress, cache=cache)
    load_s = time.perf_counter() - wall0
    scenario = p["scenario"]
    model, h = build_machine(structure, p, scenario)
    t_end = T_END[scenario] if t_end is None else float(t_end)
    res = fm.simulate(model, t_end, rtol=p["rtol"], atol=1e-6, output_interval=p["output_interval"], output=out,
                      progress=progress, case="machine-creeping", parameters=p)
    mass = structure.invariants.mass + p["moving_platen_mass"] + p["injection_unit_mass"]
    drive = drive_histories(res) if p["stroke_drive"] == "hydraulic" else \
        {"force": res["force/stroke_drive/force"], "velocity": res["force/stroke_drive/velocity"]}
    if np.count_nonzero(res.time >= p["start_time"]) < 2:
        # issue 43: a run that ends before the drive starts has no evaluated window (was an internal argmax error)
        outputs = {"not_reached": f"the run ends at t = {float(res.time[-1]):.6g} s, before the drive starts at "
                                  f"start_time = {p['start_time']:g} s: the window's force ratio, frequency and pad "
                                  "extremes are not computed (run longer)"}
    else:
        outputs = analyse(res.time, res["force/pads/Fx"], res["force/pads/Fz"], p["start_time"], mass)
        outputs.update(pad_extremes(res, h["pads"].names, p["start_time"]))
    outputs.update(contact_outputs(res, drive))
    stats = res.statistics
    return {"case": "machine-creeping", "scenario": scenario, "stroke_drive": p["stroke_drive"], "t_end": float(res.time[-1]),
            "steps": int(stats.get("steps", 0)), "wall_s": time.perf_counter() - wall0, "structure_load_s": load_s,
            "simulation_wall_s": float(stats.get("wall_time_s", 0.0)), "success": bool(res.success),
            "message": res.message, "max_constraint_violation": float(stats.get("max_constraint_violation", 0.0)),
            "elastic_coordinates": int(structure.n_modes), "machine_mass_kg": float(mass), "outputs": outputs,
            "histories": {"time": res.time, "Fx": res["force/pads/Fx"], "Fz": res["force/pads/Fz"],
                          "velocity": drive["velocity"], "drive_force": drive["force"],
                          "impact_force": res["force/impact/normal_force"]}}


def analyse(time_s, lateral, vertical, t_from: float, machine_mass: float) -> dict:
    """Peak force ratio, dominant lateral-force frequency and the Table 5-2 displacements of one history.

    Parameters
    ----------
    time_s : (n,) s;  lateral, vertical : (n,) N, summed pad forces on the machine (x, z)
    t_from : s, start of the evaluated window (the drive's start: the settling of the initial placement before
        it is excluded)
    machine_mass : kg, the whole machine (rigid-body displacement model)
    """
    t = np.asarray(time_s, dtype=float)
    keep = t >= t_from
    t, fx, fz = t[keep], np.asarray(lateral, float)[keep], np.asarray(vertical, float)[keep]
    ratio = force_ratio(fx, fz)
    k = int(np.argmax(np.abs(ratio)))
    # the machine pushes the floor with -F_pad; the Coulomb model slides when |F| > μ N (seed 003 L7680-7694)
    table = displacement_table(t, -fx, fz, machine_mass, TABLE_MU)
    freq, peaks = dominant_frequency(t, fx)
    return {"peak_force_ratio": float(abs(ratio[k])), "peak_force_ratio_time_s": float(t[k]),
            "peak_lateral_force_N": float(np.abs(fx).max()), "min_vertical_force_N": float(fz.min()),
            "max_vertical_force_N": float(fz.max()), "dominant_lateral_frequency_hz": freq,
            "lateral_spectrum_peaks_hz": peaks,
            "displacement_per_cycle_mm": {f"{mu:.1f}": 1e3 * d for mu, d in table}}


def high_pass_spectrum(t, signal) -> tuple[np.ndarray, np.ndarray] | None:
    """Frequencies (Hz) and ``|FFT|`` of ``signal`` (sampled at ``t``, s) after a high-pass at ``HIGH_PASS_HZ``
    (uniform resampling, mean removed, 4th-order Butterworth forth and back, Hann window, 8× zero padding);
    ``None`` if the window is too short to filter (sosfiltfilt's padding)."""
    from scipy.signal import butter, sosfiltfilt

    dt = float(np.median(np.diff(t)))
    grid = np.arange(t[0], t[-1], dt)
    x = np.interp(grid, t, signal)
    sos = butter(4, HIGH_PASS_HZ, "highpass", fs=1.0 / dt, output="sos")
    if grid.size <= 3 * (2 * len(sos) + 1):
        return None
    x = sosfiltfilt(sos, x - x.mean())
    n = 8 * grid.size
    return np.fft.rfftfreq(n, dt), np.abs(np.fft.rfft(x * np.hanning(grid.size), n))


def dominant_frequency(t, signal, f_min: float = PEAK_SEARCH_HZ, f_max: float = 60.0) -> tuple[float, list]:
    """Frequency (Hz) of the largest peak of :func:`high_pass_spectrum` between ``f_min`` and ``f_max`` and the
    three largest peaks (``nan``, ``[]`` for none)."""
    from scipy.signal import find_peaks

    spectrum = high_pass_spectrum(t, signal)
    if spectrum is None:
        return float("nan"), []
    f, spec = spectrum
    band = (f >= f_min) & (f <= f_max)
    idx, _ = find_peaks(spec[band])
    if idx.size == 0:
        return float("nan"), []
    order = idx[np.argsort(spec[band][idx])[::-1]]
    peaks = [float(v) for v in f[band][order[:3]]]
    return peaks[0], peaks


def pad_extremes(res, names, t_from: float) -> dict:
    """Smallest vertical force of each pad over the window (N; negative = the linear pad pulls the machine down,
    i.e. it would lift off, seed 003 L7611-7623), the smallest one and the pads that go negative."""
    keep = res.time >= t_from
    lowest = {name: float(res[f"force/pads/{name}_Fz"][keep].min()) for name in names}
    worst = min(lowest, key=lowest.get)
    return {"min_pad_vertical_force_N": lowest[worst], "min_pad": worst,
            "pads_going_negative": [name for name, value in lowest.items() if value < 0.0]}


def contact_outputs(res, drive: dict) -> dict:
    """Impact peak, mould contact time and speed (the located contact event, flexmbs.engine.events) and drive extremes."""
    impact = res["force/impact/normal_force"]
    onsets = [e for e in getattr(res, "events", []) if e.get("kind") == "contact_onset"
              and str(e.get("name", "")).startswith("impact")]
    return {"peak_impact_force_N": float(impact.max()),
            "mould_contact_time_s": float(onsets[0]["time"]) if onsets else float("nan"),
            "mould_contact_speed_m_s": float(abs(onsets[0]["gap_rate"])) if onsets else float("nan"),
            "peak_drive_force_N": float(np.abs(drive["force"]).max()),
            "peak_platen_speed_m_s": float(np.abs(drive["velocity"]).max())}


__all__ = ["run_scenario", "analyse", "dominant_frequency", "high_pass_spectrum", "SCENARIOS", "T_END"]
