"""Contact-force estimation of seed 004 §4, eq. (19)–(23) (L757–889), from measured joint motions, engine-support
angular rates/accelerations, the support acceleration and the drive torques; optional sensor noise and filtering.

With the passive silent-bloc joints (``Γ17 = Γ18 = 0``) eq. (19), (20) give the resultant contact forces
``FX21 + FX22`` (along ``z17``) and ``FY21 + FY22`` (along ``z18``) the drum exerts ON the road; with the measured
drive torques ``Γ21, Γ22`` eq. (21), (22) give the contact torques ``CZ21, CZ22`` about the drum axis. Only the sums
of the forces are observable (L880–885). Signals are arrays over time (SI); angles in rad.
"""
from __future__ import annotations

import numpy as np
from scipy.interpolate import CubicSpline
from scipy.signal import butter, filtfilt

from fem.errors import ModelError

from flexmbs.tree.dh import LinkParameters, friction_sign

__all__ = ["identified_parameters", "estimate_contact", "add_noise", "SENSOR_NOISE_KEYS"]

# which noise level (a key of compactor.toml) applies to which sensor signal
SENSOR_NOISE_KEYS = {key: level for level, keys in (
    ("noise_joint_position", "q17 q18 q20 q23"), ("noise_joint_rate", "qd17 qd18 qd21 qd22 qd23"),
    ("noise_joint_acceleration", "qdd21 qdd22 qdd23"), ("noise_angular_rate", "wz20"),
    ("noise_angular_acceleration", "wdz19 wdz20"), ("noise_acceleration", "vdx20 vdy20"),
    ("noise_torque", "gamma21 gamma22")) for key in keys.split()}


def identified_parameters(params: LinkParameters) -> dict:
    """The parameters eq. (19)–(23) need (the seed identified them on the machine, L908–910, values not given; here
    they are the forward model's stand-ins, so the round trip tests the equations, not an identification)."""
    j = lambda link: link - 1  # noqa: E731
    return {
        "MR19": float(sum(params.mass[j(k)] for k in (19, 20, 21, 22, 23))),  # eq. (23)
        "MX23": float(params.first_moment[j(23), 0]), "MY23": float(params.first_moment[j(23), 1]),
        "ZZ21": float(params.inertia[j(21), 2, 2]), "ZZ22": float(params.inertia[j(22), 2, 2]),
        "k17": float(params.stiffness[j(17)]), "h17": float(params.damping[j(17)]),
        "k18": float(params.stiffness[j(18)]), "h18": float(params.damping[j(18)]),
        "h21": float(params.damping[j(21)]), "fs21": float(params.coulomb[j(21)]),
        "h22": float(params.damping[j(22)]), "fs22": float(params.coulomb[j(22)]),
        "friction_velocity": float(params.friction_velocity),
    }


def estimate_contact(s: dict, x: dict) -> dict:
    """Seed 004 eq. (19)–(22) solved for the contact wrench.

    Parameters
    ----------
    s : dict of (n,) arrays
        ``q17, qd17, q18, qd18`` (m, m/s), ``q20, q23`` (rad), ``qd21, qd22, qd23`` (rad/s), ``qdd21, qdd22, qdd23``
        (rad/s²), ``wz20`` (rad/s), ``wdz19, wdz20`` (rad/s²), ``vdx20, vdy20`` (m/s², accelerometer on support 20 in
        its frame: acceleration minus gravity), ``gamma21, gamma22`` (N m, drive torques); optional ``gamma17``,
        ``gamma18`` (N; 0: passive silent blocs).
    x : dict from :func:`identified_parameters`

    Returns
    -------
    dict of (n,) arrays: ``FX`` = FX21 + FX22 (N), ``FY`` = FY21 + FY22 (N), ``CZ21``, ``CZ22`` (N m).
    """
    g17 = s.get("gamma17", 0.0)
    g18 = s.get("gamma18", 0.0)
    c20, s20 = np.cos(s["q20"]), np.sin(s["q20"])
    angle = s["q20"] + s["q23"]
    ca, sa = np.cos(angle), np.sin(angle)
    w = s["wz20"] + s["qd23"]  # absolute exciter speed
    wd = s["wdz20"] + s["qdd23"]
    mx, my = x["MX23"], x["MY23"]
    # seed 004 eq. (19)
    fx = g17 - ((s["vdx20"] * c20 - s["vdy20"] * s20) * x["MR19"] + x["h17"] * s["qd17"] + x["k17"] * s["q17"]
                - (w * w * ca + wd * sa) * mx + (w * w * sa - wd * ca) * my)
    # seed 004 eq. (20)
    fy = g18 - ((s["vdx20"] * s20 + s["vdy20"] * c20) * x["MR19"] + x["h18"] * s["qd18"] + x["k18"] * s["q18"]
                - (w * w * sa - wd * ca) * mx - (w * w * ca + wd * sa) * my)
    v = x["friction_velocity"]
    # seed 004 eq. (21), (22)
    cz21 = s["gamma21"] - ((s["wdz19"] + s["qdd21"]) * x["ZZ21"] + x["h21"] * s["qd21"]
                           + x["fs21"] * friction_sign(s["qd21"], v))
    cz22 = s["gamma22"] - ((s["wdz20"] + s["qdd22"]) * x["ZZ22"] + x["h22"] * s["qd22"]
                           + x["fs22"] * friction_sign(s["qd22"], v))
    return {"FX": fx, "FY": fy, "CZ21": cz21, "CZ22": cz22}


def add_noise(s: dict, p: dict, time: np.ndarray) -> dict:
    """Sensor signals with white Gaussian noise of the rms levels in ``p`` (keys :data:`SENSOR_NOISE_KEYS`), then,
    if ``p['filter_cutoff']`` > 0 (Hz), a zero-phase 4th-order Butterworth low pass on every signal.

    The recorded samples are not uniformly spaced (one per output interval, at the first step after it): the filter
    runs on a uniform grid of the median spacing, reached and left by cubic splines (interpolation error
    ~ (ω h)⁴/384, 1e-3 at 8 samples per period).
    """
    rng = np.random.default_rng(int(p["noise_seed"]))
    out = dict(s)
    for key, level in SENSOR_NOISE_KEYS.items():
        out[key] = s[key] + float(p[level]) * rng.standard_normal(s[key].shape)
    cutoff = float(p["filter_cutoff"])
    if cutoff <= 0.0 or time.size < 28:
        return out
    dt = float(np.median(np.diff(time)))
    grid = np.arange(time[0], time[-1] + 0.5 * dt, dt)
    nyquist = 0.5 / dt
    if cutoff >= nyquist:
        raise ModelError(f"filter_cutoff = {cutoff:g} Hz is above the Nyquist frequency {nyquist:.4g} Hz of the "
                         "recorded samples; lower it or reduce output_interval")
    b, a = butter(4, cutoff / nyquist)
    for key in SENSOR_NOISE_KEYS:
        smooth = filtfilt(b, a, CubicSpline(time, out[key])(grid))
        out[key] = CubicSpline(grid, smooth)(time)
    return out
