"""Linearized platen stroke and its PID loop, seed 003 eq. (4-4)..(4-14) and appendix D.

The simplified model of seed 003 Fig. 4-13: one equivalent cylinder (the two stroke cylinders) on the platen mass,
fed by two variable orifices whose flows are linear in the valve command ``u`` (V); retraction = mould close,
``r`` rod side (from P), ``b`` bore side (to T). All functions take SI units and return SI units; the polynomial
coefficients are numpy arrays, highest power first.

Reconstruction notes (docs/cases/platen-stroke.md, wave2-spec B.4/B.5): eq. (4-8) prints ``√(Pr0 − PT)`` in the
``Qb`` line, read ``√(Pb0 − PT)``; eq. (4-14) prints ``580.8 s``, read ``530.8 s``.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla
import scipy.optimize as sopt
import scipy.signal as ssig

__all__ = ["working_point", "plant_coefficients", "plant_transfer_function", "pid_transfer_function",
           "open_loop", "closed_loop", "closed_loop_poles", "integral_time_stability_limit",
           "integrated_squared_error", "ise_optimal_integral_time", "pole_summary", "with_spool_lag",
           "spool_frequency_stability_limit"]


def working_point(u0: float, supply_pressure: float, tank_pressure: float, friction_force: float,
                  rod_area: float, bore_area: float, alpha: float, beta: float) -> dict:
    """Steady state of seed 003 eq. (4-4) with eq. (4-5), (4-6): eq. (4-7).

    Parameters
    ----------
    u0 : float, V
        Valve command at the working point.
    supply_pressure, tank_pressure : float, Pa
        ``PP``, ``PT``.
    friction_force : float, N
        ``Fr`` opposing the motion.
    rod_area, bore_area : float, m^2
        ``Ar``, ``Ab`` (both cylinders together).
    alpha, beta : float, m^3/(s V Pa^0.5)
        Nominal flow gains of the inflow (P→r) and outflow (b→T) orifices.

    Returns
    -------
    dict
        ``v0`` (m/s, retraction speed), ``Pr0``, ``Pb0`` (Pa), ``Qr0``, ``Qb0`` (m^3/s).
    """
    pp, pt, fr, ar, ab = supply_pressure, tank_pressure, friction_force, rod_area, bore_area
    # seed 003 eq. (4-7)
    v0 = abs(u0 * alpha * beta) * math.sqrt((pp * ar - pt * ab - fr) / (beta**2 * ar**3 + alpha**2 * ab**3))
    pb0 = pt + ab**2 * v0**2 / (beta**2 * u0**2)
    pr0 = fr / ar + ab / ar * pb0
    return {"v0": v0, "Pr0": pr0, "Pb0": pb0, "Qr0": ar * v0, "Qb0": ab * v0}


def plant_coefficients(u0: float, supply_pressure: float, tank_pressure: float, friction_force: float,
                       rod_area: float, bore_area: float, alpha: float, beta: float, bulk_modulus: float,
                       rod_volume: float, bore_volume: float, mass: float) -> dict:
    """Coefficients ``a, b, c, d, e`` of ``v/u = (a s + b)/(s^3 + c s^2 + d s + e)``, seed 003 eq. (4-9), (4-10).

    Built from the linearized equations (4-8): ``Qr = Kr u − Cr Pr``, ``Qb = Kb u + Cb Pb`` with
    ``Kr = α √(PP − Pr0)``, ``Cr = α u0 / (2 √(PP − Pr0))``, ``Kb = β √(Pb0 − PT)``, ``Cb = β u0 / (2 √(Pb0 − PT))``.

    Parameters
    ----------
    bulk_modulus : float, Pa
        ``E`` (constant).
    rod_volume, bore_volume : float, m^3
        ``Vr0``, ``Vb0``.
    mass : float, kg
    (the others as :func:`working_point`)

    Returns
    -------
    dict
        ``a`` (m/(s^2 V)), ``b``, ``c``, ``d``, ``e`` and the working point of :func:`working_point`.
    """
    wp = working_point(u0, supply_pressure, tank_pressure, friction_force, rod_area, bore_area, alpha, beta)
    e_mod, ar, ab, vr, vb, m = bulk_modulus, rod_area, bore_area, rod_volume, bore_volume, mass
    root_r = math.sqrt(supply_pressure - wp["Pr0"])
    root_b = math.sqrt(wp["Pb0"] - tank_pressure)
    kr, cr_flow = alpha * root_r, alpha * u0 / (2.0 * root_r)
    kb, cb_flow = beta * root_b, beta * u0 / (2.0 * root_b)
    cr, cb = e_mod * cr_flow / vr, e_mod * cb_flow / vb
    coeff = {
        "a": e_mod * ar * kr / (vr * m) + e_mod * ab * kb / (vb * m),
        "b": e_mod * ar * kr * cb / (vr * m) + e_mod * ab * kb * cr / (vb * m),
        "c": cr + cb,
        "d": cr * cb + e_mod * ar**2 / (vr * m) + e_mod * ab**2 / (vb * m),
        "e": e_mod * ar**2 * cb / (vr * m) + e_mod * ab**2 * cr / (vb * m),
    }
    coeff.update(wp)
    return coeff


def plant_transfer_function(coefficients: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(num, den)`` of seed 003 eq. (4-9) from :func:`plant_coefficients`."""
    c = coefficients
    return np.array([c["a"], c["b"]]), np.array([1.0, c["c"], c["d"], c["e"]])


def pid_transfer_function(gain: float, integral_time: float, derivative_time: float,
                          filter_time: float) -> tuple[np.ndarray, np.ndarray]:
    """Seed 003 eq. (4-12): ``K_P (1 + 1/(T_I s) + T_D s/(1 + T s))`` as one fraction ``(num, den)``."""
    kp, ti, td, t = gain, integral_time, derivative_time, filter_time
    num = kp * np.array([ti * t + td * ti, ti + t, 1.0])
    den = np.array([ti * t, ti, 0.0])
    return num, den


def open_loop(plant, controller) -> tuple[np.ndarray, np.ndarray]:
    """``F0 = F_C F_P``, seed 003 eq. (4-13)."""
    return np.polymul(controller[0], plant[0]), np.polymul(controller[1], plant[1])


def closed_loop(plant, controller) -> tuple[np.ndarray, np.ndarray]:
    """``F_w = F0 / (1 + F0)``, seed 003 eq. (4-14) (unity feedback of the velocity)."""
    num, den = open_loop(plant, controller)
    return num, np.polyadd(den, num)


def closed_loop_poles(plant, gain, integral_time, derivative_time, filter_time) -> np.ndarray:
    """Poles of eq. (4-14) for one PID setting, sorted by real part (most negative first)."""
    _, den = closed_loop(plant, pid_transfer_function(gain, integral_time, derivative_time, filter_time))
    poles = np.roots(den)
    return poles[np.lexsort((poles.imag, poles.real))]


def integral_time_stability_limit(plant, gain, derivative_time, filter_time, bracket=(1e-4, 1.0)) -> float:
    """Smallest ``T_I`` (s) for which the loop of eq. (4-14) is stable (largest pole real part crosses 0)."""
    def margin(ti):
        return float(np.max(closed_loop_poles(plant, gain, ti, derivative_time, filter_time).real))

    lo, hi = bracket
    if margin(hi) >= 0.0 or margin(lo) < 0.0:
        raise ValueError("the stability limit of T_I is not inside the bracket")
    return float(sopt.brentq(margin, lo, hi, xtol=1e-9))


def integrated_squared_error(plant, gain, integral_time, derivative_time, filter_time) -> float:
    """ISE ``∫ e² dt`` (m² s / s², velocity error) after a unit step of the velocity reference.

    ``e(s) = W(s)/(1 + F0(s))``; with ``W = 1/s`` and ``F0 = N0/(s D0')`` the error is the impulse response of
    ``D0'/(s D0' + N0)``; its ISE is ``C X Cᵀ`` with the controllability Gramian ``A X + X Aᵀ + B Bᵀ = 0``.
    Returns ``inf`` for an unstable loop.
    """
    num0, den0 = open_loop(plant, pid_transfer_function(gain, integral_time, derivative_time, filter_time))
    den_closed = np.polyadd(den0, num0)
    if np.max(np.roots(den_closed).real) >= 0.0:
        return math.inf
    reduced = np.polydiv(den0, [1.0, 0.0])[0]  # D0 = s D0'
    a, b, c, d = ssig.tf2ss(reduced, den_closed)
    gram = sla.solve_continuous_lyapunov(a, -b @ b.T)
    return float((c @ gram @ c.T).item())


def ise_optimal_integral_time(plant, gain, derivative_time, filter_time, upper: float = 0.5) -> float:
    """``T_I`` (s) minimising :func:`integrated_squared_error` (appendix D recipe), bounded by the stability limit."""
    lower = integral_time_stability_limit(plant, gain, derivative_time, filter_time) * 1.0001
    result = sopt.minimize_scalar(lambda ti: integrated_squared_error(plant, gain, ti, derivative_time, filter_time),
                                  bounds=(lower, upper), method="bounded", options={"xatol": 1e-7})
    return float(result.x)


def with_spool_lag(plant, frequency: float, damping: float) -> tuple[np.ndarray, np.ndarray]:
    """The plant behind a second-order valve lag ``ω²/(s² + 2ζω s + ω²)`` (rad/s, 1), seed 003 L6360.

    Eq. (4-4) assumes an infinitely fast valve (L6658-6664); the case's valve has this lag (parameters assumed).
    """
    w = frequency
    return np.polymul(plant[0], [w * w]), np.polymul(plant[1], [1.0, 2.0 * damping * w, w * w])


def spool_frequency_stability_limit(plant, gain, integral_time, derivative_time, filter_time, damping: float,
                                    bracket=(1.0, 1e4)) -> float:
    """Smallest valve natural frequency (rad/s) for which the PID loop of eq. (4-14) with the lag is stable."""
    def margin(w):
        lagged = with_spool_lag(plant, w, damping)
        return float(np.max(closed_loop_poles(lagged, gain, integral_time, derivative_time, filter_time).real))

    lo, hi = bracket
    if margin(hi) >= 0.0 or margin(lo) < 0.0:
        raise ValueError("the stability limit of the valve frequency is not inside the bracket")
    return float(sopt.brentq(margin, lo, hi, xtol=1e-6))


def pole_summary(poles) -> list[dict]:
    """Each pole with its natural frequency (rad/s, Hz), damping ratio and (real poles) time constant."""
    out = []
    for p in poles:
        if p.imag < 0.0:
            continue
        w0 = abs(p)
        item = {"real": float(p.real), "imag": float(p.imag), "omega0_rad_s": float(w0),
                "frequency_hz": float(w0 / (2.0 * math.pi)), "damping_ratio": float(-p.real / w0) if w0 else 1.0}
        if p.imag == 0.0 and p.real < 0.0:
            item["time_constant_s"] = float(-1.0 / p.real)
        out.append(item)
    return out
