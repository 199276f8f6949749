"""Plausibility guards: results that ran without error but are physically absurd get a warning that names the
cause (stored in the results file attribute ``warnings`` and in the run summary; never an error).

Checked from running extremes the :class:`flexmbs.engine.recorder.Recorder` keeps (memory independent of the run
length): pressures, elastic deformation and frequencies, the time step and the pace (docs/safety.md, "Plausibility
guards"); a flexible body without geometric stiffness that spins or carries axial load (issue 28,
:func:`_geometric_warning`); elastic modes the integrator damps away (issue 43, :func:`dissipation_warnings`).
"""
from __future__ import annotations

import math

import numpy as np

# the API's input checks live with the model (flexmbs.model.checks): re-exported for older imports
from flexmbs.model.checks import (MIN_BOX_DENSITY, PlausibilityWarning, check_pose, check_rigid_body,  # noqa: F401
                                  check_vector, rigid_body_problems)

__all__ = ["PlausibilityWarning", "Extremes", "plausibility_warnings", "axial_load_operator", "MAX_ELASTIC_FRACTION",
           "rigid_body_problems", "check_rigid_body"]

MAX_ELASTIC_FRACTION = 0.05  # floating frame with linear elastic modes: small deformation only
PRESSURE_MARGIN = 1.1  # above the highest relief/supply setting by more than 10 %
SOUND_SPEED_RANGE = (20.0, 20000.0)  # m/s, sqrt(E/ρ) of solids: soft rubber .. diamond
SLOW_FACTOR = 1000.0  # wall time per simulated time that is "far slower"
MIN_MEAN_STEP_FRACTION = 1e-7  # mean step below this fraction of t_end: the step collapsed
# a body spinning at Ω > 0.02 ω₁ without geometric stiffness (ω₁ its lowest free–free frequency, the only one the
# body knows): a body held like a cantilever has a lowest frequency ≈ ω₁/6.4 (uniform beam: 3.516 against 22.37),
# so Ω > 0.13 of that, where the missing Southwell term k Ω² (k ≈ 1.2) shifts its frequency by more than 1 %
SPIN_FRACTION = 0.02
# an axial load |N| > 0.02 P_cr between two interfaces of a body without geometric stiffness: a pinned–pinned column
# has ω² = ω₀² (1 − N/P_cr) (tension: 1 + N/P_cr), so the missing term shifts its lowest bending frequency by
# ≈ ½ N/P_cr, more than 1 % — the same 1 % as the spin threshold. P_cr is an estimate (:func:`axial_load_operator`).
LOAD_FRACTION = 0.02
FREE_FREE_BETA_L = 4.730041  # first free–free bending root of a uniform beam, β₁L (ω₁ = (β₁L)² √(EI/(m L³)))


def axial_load_operator(body) -> tuple[list, np.ndarray, np.ndarray] | None:
    """Axial forces of a flexible body along its axis between consecutive interfaces, read off its elastic
    coordinates through the interface forces, and an Euler load estimate of each segment (issues 28 and 43);
    ``None`` for a body with fewer than two interfaces with translations.

    The interface loads ``w`` (forces, and moments where an interface has rotations) are those whose generalized
    forces the elastic coordinates balance, ``B_Iᵀ w = K_ff q`` (``B_I`` the interfaces' translation and rotation
    rows of the modes; least squares, the smallest such loads where several fit). The body's axis ``e`` is the
    principal direction of its nodes (largest spread); the interfaces are ordered by their position ``s`` along
    it, and the axial force of the segment between consecutive interfaces ``k`` and ``k+1`` is the mean of the two
    cuts, ``N_k = ½ (Σ_{i>k} f_i·e − Σ_{i≤k} f_i·e)`` (tension positive): exact for a body loaded by its
    interfaces alone (a column pressed or a tie pulled by its ends), and a lug's offset from the axis or its local
    bending does not count as axial load (issue 43: the displacements of an off-axis lug along the axis, read as
    an elongation before, made a crane boom "carry" 4.6e4 N where its axial force was below 2 kN).

    The Euler load estimate is that of a pinned–pinned uniform beam over the interfaces' span ``L_s`` whose lowest
    free–free frequency ``ω₁`` is the body's: ``EI ≈ ω₁² m L³ / (β₁L)⁴`` (``L`` the body's size, ``m`` its
    mass), ``P_cr ≈ π² EI / L_s²``; a segment of length ``L_k`` shifts ``ω²`` by about its share ``L_k / L_s`` of
    a force over the whole span, so each segment's estimate is ``P_cr L_s / L_k``.

    Returns
    -------
    (pairs, operator, p_cr): segment names ``"a–b"`` (p,), ``N = operator @ q`` (p, m) N per modal unit,
    estimates (p,) N.
    """
    flexbody = getattr(body, "flexbody", None)
    stiffness = np.asarray(getattr(body, "modal_stiffness", []), dtype=float)
    if flexbody is None or stiffness.size == 0 or np.any(stiffness <= 0.0):
        return None
    found = [(i.name, i.node, set("456") <= set(i.retained_dofs)) for i in getattr(flexbody, "interfaces", [])
             if set("123") <= set(i.retained_dofs)]
    if len(found) < 2:
        return None
    pos, shapes = np.asarray(body.node_positions, dtype=float), np.asarray(body.node_translations, dtype=float)
    rotations = getattr(body, "node_rotations", None)
    centred = pos - pos.mean(axis=0)
    axis = np.linalg.eigh(centred.T @ centred)[1][:, -1]  # principal direction of the nodes
    axis = axis * (1.0 if axis[np.argmax(np.abs(axis))] > 0.0 else -1.0)  # a sign of the geometry, not of LAPACK
    rows, force_rows = [], []
    for name, node, turns in found:
        force_rows.append(sum(len(r) for r in rows))
        rows.append(shapes[node])
        if turns and rotations is not None:
            rows.append(np.asarray(rotations, dtype=float)[node])
    b_interface = np.concatenate(rows)  # (r, m)
    loads = np.linalg.pinv(b_interface.T) * stiffness[None, :]  # w = loads @ q, (r, m)
    along = np.array([loads[k:k + 3].T @ axis for k in force_rows])  # f_i·e per modal unit, (n, m)
    s = pos[[node for _, node, _ in found]] @ axis
    order = np.argsort(s, kind="stable")
    s, along = s[order], along[order]
    span = float(s[-1] - s[0])
    size = float(np.linalg.norm(np.ptp(pos, axis=0)))
    if span <= 1e-6 * size:
        return None
    pairs, operator, lengths = [], [], []
    for k in range(len(found) - 1):
        length = float(s[k + 1] - s[k])
        if length <= 1e-6 * span:  # two interfaces at one section: no segment between them
            continue
        pairs.append(f"{found[order[k]][0]}–{found[order[k + 1]][0]}")
        operator.append(0.5 * (along[k + 1:].sum(axis=0) - along[:k + 1].sum(axis=0)))
        lengths.append(length)
    if not pairs:
        return None
    omega1 = 2.0 * np.pi * float(np.min(body.frequencies_hz))
    ei = omega1**2 * float(body.mass) * size**3 / FREE_FREE_BETA_L**4
    return pairs, np.array(operator), np.pi**2 * ei / span**2 * span / np.array(lengths)


class Extremes:
    """Running extremes of a run: peak pressure (signal, time), the sample of largest modal amplitude per flexible
    body and, for flexible bodies without geometric stiffness (every body's spin without a ``system``), the largest
    spin and the largest axial interface load relative to its Euler estimate (:func:`axial_load_operator`: one small
    matrix product per recorded sample)."""

    def __init__(self, system=None):
        self.pressure = (-np.inf, "", 0.0)
        self.modal: dict[str, tuple[float, np.ndarray, float]] = {}
        self.modal_range: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # modal key -> (lowest, highest) per mode
        # modal key -> (last time, last value, lowest rate, highest rate) per mode: the frequency it oscillates at
        self.rates: dict[str, tuple] = {}
        self.spin: dict[str, tuple[float, float]] = {}  # body angular velocity key -> (largest |ω| rad/s, time)
        # modal key -> (pairs, operator (p, m), 1/P_cr (p,)), and -> (largest |N|/P_cr, N N, pair, time)
        self._axial: dict[str, tuple] = {}
        self.axial: dict[str, tuple[float, float, str, float]] = {}
        # the spins the guards read (_geometric_reasons: flexible bodies without geometric stiffness), or None
        # without a system: every body's
        self._spin_read = None if system is None else set()
        for body in getattr(system, "bodies", []):
            if getattr(body, "n_modes", 0) and not getattr(body, "has_geometric_stiffness", True):
                self._spin_read.add(f"body/{body.name}/angular_velocity")
                found = axial_load_operator(body)
                if found is not None and len(found[0]):
                    self._axial[f"body/{body.name}/modal_coordinates"] = (found[0], found[1], 1.0 / found[2])
        self._pressure_keys = self._modal_keys = self._spin_keys = None

    def _keys(self, row, units) -> None:
        if self._pressure_keys is None:  # the rows of a run have one set of keys: found at the first row
            pressure, modal, spin = self._pressure_keys, self._modal_keys, self._spin_keys = [], [], []
            for k in row:  # (one pass over the keys)
                if k.endswith("/modal_coordinates"):
                    modal.append(k)
                if k.startswith("element/"):
                    if units.get(k) == "Pa":
                        pressure.append(k)
                elif (k.startswith("body/") and k.endswith("/angular_velocity")
                      and (self._spin_read is None or k in self._spin_read)):
                    spin.append(k)

    def update_block(self, times, columns: dict, units: dict) -> None:
        """:meth:`update` for several samples (``columns``: name -> array with one row per time)."""
        self._keys(columns, units)
        for key in self._pressure_keys:
            values = np.asarray(columns[key])
            k = int(values.argmax())
            peak = float(values[k])  # (read once: a numpy scalar each time ≈ 0.5 µs)
            if peak > self.pressure[0]:
                self.pressure = (peak, key, float(times[k]))
        if not (self._modal_keys or self._spin_keys):  # (rigid bodies only: ≈ 1.5 µs of a run's flush)
            return
        for key in self._modal_keys:
            block = np.asarray(columns[key], dtype=float)
            self._range(key, block.min(axis=0), block.max(axis=0))
            self._rates(key, np.asarray(times, dtype=float), block)
        for key, store in [(k, "modal") for k in self._modal_keys] + [(k, "spin") for k in self._spin_keys]:
            norms = np.sqrt((np.asarray(columns[key]) ** 2).sum(axis=1))
            k = int(norms.argmax())
            if store == "modal" and norms[k] > self.modal.get(key, (-1.0,))[0]:
                self.modal[key] = (float(norms[k]), np.array(columns[key][k]), float(times[k]))
            elif store == "spin" and norms[k] > self.spin.get(key, (-1.0,))[0]:
                self.spin[key] = (float(norms[k]), float(times[k]))
        self._axial_update(np.asarray(times, dtype=float), columns)

    def update(self, t: float, row: dict, units: dict) -> None:
        self._keys(row, units)
        for key in self._pressure_keys:
            value = row[key]
            if value > self.pressure[0]:
                self.pressure = (float(value), key, t)
        for key in self._modal_keys:
            value = row[key]
            self._range(key, np.asarray(value, dtype=float), np.asarray(value, dtype=float))
            self._rates(key, np.array([t], dtype=float), np.asarray(value, dtype=float)[None])
            norm = float(np.sqrt(np.dot(value, value)))
            if norm > self.modal.get(key, (-1.0,))[0]:
                self.modal[key] = (norm, np.array(value), t)
        for key in self._spin_keys:
            value = row[key]
            norm = float(np.sqrt(np.dot(value, value)))
            if norm > self.spin.get(key, (-1.0,))[0]:
                self.spin[key] = (norm, t)
        self._axial_update(np.array([t]), {k: np.asarray(row[k])[None] for k in self._axial if k in row})

    def _rates(self, key: str, times: np.ndarray, block: np.ndarray) -> None:
        """Running lowest and highest rate of each coordinate (differences of consecutive samples, continued
        across calls): with the range of the coordinate, the frequency it oscillates at."""
        last = self.rates.get(key)
        if last is not None:
            times, block = np.concatenate([[last[0]], times]), np.vstack([last[1][None], block])
        dt = np.diff(times)
        keep = dt > 0.0
        low = high = None
        if np.any(keep):
            rate = np.diff(block, axis=0)[keep] / dt[keep, None]
            low, high = rate.min(axis=0), rate.max(axis=0)
            if last is not None and last[2] is not None:
                low, high = np.minimum(last[2], low), np.maximum(last[3], high)
        elif last is not None:
            low, high = last[2], last[3]
        self.rates[key] = (float(times[-1]), np.array(block[-1], dtype=float), low, high)

    def _range(self, key: str, low: np.ndarray, high: np.ndarray) -> None:
        if key in self.modal_range:
            old_low, old_high = self.modal_range[key]
            low, high = np.minimum(old_low, low), np.maximum(old_high, high)
        self.modal_range[key] = (np.array(low, dtype=float), np.array(high, dtype=float))

    def _axial_update(self, times, columns: dict) -> None:
        """Largest |N|/P_cr of each watched body over samples (``columns``: modal key -> (n_t, m))."""
        for key, (pairs, operator, inverse_p_cr) in self._axial.items():
            if key in columns:
                load = np.asarray(columns[key], dtype=float) @ operator.T  # (n_t, pairs) N
                ratio = np.abs(load) * inverse_p_cr
                i, k = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
                if ratio[i, k] > self.axial.get(key, (-1.0,))[0]:
                    self.axial[key] = (float(ratio[i, k]), float(load[i, k]), pairs[k], float(times[i]))


def _pressure_settings(system, parameters: dict) -> list[tuple[float, str]]:
    """(Pa, name) of relief cracking pressures and pressure-source set points in the circuits, and of case
    parameters that are supply/pump/relief pressures."""
    found = []
    for element in system.elements:
        for comp in getattr(element, "components", []):
            if "relief" in type(comp).__name__.lower() and hasattr(comp, "cracking_pressure"):
                found.append((float(comp.cracking_pressure), f"relief valve {comp.name}"))
            signal = getattr(comp, "pressure_signal", None)
            if signal is None:  # (not a pressure source)
                continue
            value = getattr(signal, "constant", getattr(signal, "value", None))  # hydraulics.signals.Constant
            if isinstance(value, (int, float)):
                found.append((float(value), f"pressure source {comp.name}"))
    for key, value in (parameters or {}).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and key.endswith("pressure") and any(
                word in key for word in ("supply", "pump", "relief")):
            found.append((float(value), f"parameter {key}"))
    return found


def _body_size(positions: np.ndarray) -> float:
    return float(np.linalg.norm(np.ptp(positions, axis=0))) if positions.size else 0.0


def _geometric_reasons(body, freqs: np.ndarray, extremes: Extremes) -> str:
    """Why a body without geometric stiffness needs it (spin above SPIN_FRACTION of its lowest frequency, axial
    interface load above LOAD_FRACTION of its Euler estimate), or ``""``."""
    if not freqs.size or getattr(body, "has_geometric_stiffness", True):
        return ""
    reasons = []
    spin, t_spin = extremes.spin.get(f"body/{body.name}/angular_velocity", (0.0, 0.0))
    lowest = 2.0 * np.pi * float(freqs.min())
    if spin > SPIN_FRACTION * lowest:
        reasons.append(f"spins at up to {spin:.3g} rad/s (t = {t_spin:.4g} s), {spin / lowest:.2g} x its lowest "
                       f"(free–free) elastic frequency {lowest:.3g} rad/s: centrifugal stiffening is missing (a mounted "
                       "bending frequency ω shifts by ≈ ½·1.2·(Ω/ω)² of itself)")
    ratio, load, pair, t_load = extremes.axial.get(f"body/{body.name}/modal_coordinates", (0.0, 0.0, "", 0.0))
    if ratio > LOAD_FRACTION:
        kind = "compression" if load < 0.0 else "tension"
        effect = "softening up to buckling" if load < 0.0 else "tension stiffening"
        reasons.append(f"carries {abs(load):.3g} N of {kind} between its interfaces {pair} (t = {t_load:.4g} s), "
                       f"{ratio:.2g} x an Euler load estimated from its lowest frequency ({abs(load) / ratio:.3g} N, "
                       f"pinned–pinned): {effect} is missing (ω² shifts by ≈ N/P_cr)")
    return f"body {body.name!r} " + " and ".join(reasons) if reasons else ""


def _geometric_warning(bodies, extremes: Extremes) -> list[str]:
    """One line per run for all flexible bodies without geometric stiffness that need it (issue 28)."""
    found = [_geometric_reasons(body, np.asarray(getattr(body, "frequencies_hz", []), dtype=float), extremes)
             for body in bodies if getattr(body, "n_modes", 0)]
    found = [text for text in found if text]
    if not found:
        return []
    files = "its file has" if len(found) == 1 else "their files have"
    return ["; ".join(found) + f"; but {files} no geometric stiffness: reduce with reduce(..., "
            "geometric_stiffness=True) or flexmbs reduce --geometric-stiffness"]


def plausibility_warnings(system, extremes: Extremes, stats: dict, parameters: dict | None,
                          limiting=None) -> list[str]:
    """The warnings of a finished (or stopped) run; see the module docstring. ``limiting``: the rejected steps per
    limiting equation, by name (a dict, or a function giving it: called only for a warning that names them)."""
    out = []
    settings = _pressure_settings(system, parameters or {})
    peak, key, t_peak = extremes.pressure
    if settings and math.isfinite(peak):
        highest, name = max(settings)
        if peak > PRESSURE_MARGIN * highest:
            out.append(f"pressure {peak / 1e5:.4g} bar in {key} at t = {t_peak:.4g} s is above every relief/supply "
                       f"setting of the circuit (highest {highest / 1e5:.4g} bar, {name}): check the pressures set")
    flexible = [body for body in system.bodies if getattr(body, "n_modes", 0)]  # (the checks of elastic modes)
    for body in flexible:
        size = _body_size(body.node_positions)
        key = f"body/{body.name}/modal_coordinates"
        if key in extremes.modal and size > 0:
            _, q, t_q = extremes.modal[key]
            # relative displacement of the body's points (independent of where the floating frame sits)
            deflection = float(np.linalg.norm(np.ptp(body.node_translations @ q, axis=0)))
            if deflection > MAX_ELASTIC_FRACTION * size:
                out.append(f"elastic deformation of body {body.name!r} reaches {deflection:.3g} m at t = {t_q:.4g} s, "
                           f"{100 * deflection / size:.0f} % of its size {size:.3g} m: beyond the small-deformation "
                           "range of the floating frame (check its Young's modulus and loads)")
        freqs = np.asarray(getattr(body, "frequencies_hz", []), dtype=float)
        if freqs.size and size > 0:
            upper = SOUND_SPEED_RANGE[1] / size  # no solid's lowest elastic mode is above c_max / L
            if freqs.min() > upper:
                out.append(f"lowest elastic frequency of body {body.name!r} is {freqs.min():.4g} Hz, above "
                           f"{upper:.3g} Hz that any solid of size {size:.3g} m can have: a unit slip in E or density?")
            if freqs.min() < 0.1:
                out.append(f"lowest elastic frequency of body {body.name!r} is {freqs.min():.3g} Hz, implausibly low "
                           "for a structural part: a unit slip in E (Pa) or density (kg/m³)?")
    if flexible:  # (both read the flexible bodies only)
        out += _geometric_warning(flexible, extremes)
        out += dissipation_warnings(flexible, extremes, stats)
    t_end, steps = stats.get("t_end", 0.0), stats.get("steps", 0)
    wall = stats.get("wall_time_s", 0.0) - stats.get("compile_time_s", 0.0)  # a first run's compile is not slowness

    def cause() -> str:  # the equations are named only for a warning
        found = limiting() if callable(limiting) else limiting
        if not found:
            return ""
        worst = max(found, key=found.get)
        return f"; most step rejections in {worst} ({found[worst]} of {sum(found.values())})"

    if steps and t_end > 0 and t_end / steps < MIN_MEAN_STEP_FRACTION * max(t_end, 1.0):
        out.append(f"the time step collapsed: {steps} steps for {t_end:.4g} s (mean {t_end / steps:.3g} s){cause()}")
    elif t_end > 0 and wall > SLOW_FACTOR * t_end and wall > 60.0:
        out.append(f"the run took {wall:.0f} s for {t_end:.4g} s simulated ({wall / t_end:.0f}x slower than real "
                   f"time, mean step {t_end / max(steps, 1):.3g} s){cause()}")
    return out


# issue 43: the share of a mode's energy the integrator's numerical dissipation may remove over a run before a
# warning (10 %: the amplitude down by 5 %), for modes it damps more than their own damping and that carry at least
# EXCITED_SHARE of the largest oscillation energy of their body
DISSIPATION_SHARE = 0.10
EXCITED_SHARE = 0.01
DEFAULT_RHO_INF = 0.8  # flexmbs.simulate's default
MIN_SWING = 1e-7  # a mode swinging its points by less than this fraction of the body's size is not oscillating


def spectral_radius(omega_h, rho_inf: float) -> np.ndarray:
    """Spectral radius of the generalized-α method (Arnold & Brüls 2007, Chung & Hulbert 1993 parameters from
    ``rho_inf``) on the undamped oscillator ``ẍ = −ω² x`` at ``Ω = ω h``: the factor by which the amplitude of a
    free oscillation shrinks per step (1 at Ω → 0, ``rho_inf`` at Ω → ∞). Largest eigenvalue modulus of the
    one-step map of ``(x, v, a, ẍ)``."""
    r = float(rho_inf)
    am, af = (2.0 * r - 1.0) / (r + 1.0), r / (r + 1.0)
    g = 0.5 + af - am
    b = 0.25 * (g + 0.5) ** 2
    out = []
    for big in np.atleast_1d(np.asarray(omega_h, dtype=float)):
        w2 = big * big  # h = 1
        new = np.array([[1.0, 0.0, -b, 0.0], [0.0, 1.0, -g, 0.0], [(1.0 - af) * w2, 0.0, 1.0 - am, 0.0],
                        [w2, 0.0, 0.0, 1.0]])
        old = np.array([[1.0, 1.0, 0.5 - b, 0.0], [0.0, 1.0, 1.0 - g, 0.0], [0.0, 0.0, -am, af],
                        [0.0, 0.0, 0.0, 0.0]])
        out.append(float(np.max(np.abs(np.linalg.eigvals(np.linalg.solve(new, old))))))
    return np.array(out)


def dissipation_warnings(bodies, extremes: Extremes, stats: dict) -> list[str]:
    """One line per run when the integrator's numerical dissipation removed more than :data:`DISSIPATION_SHARE`
    of the energy of an elastic mode that oscillated (issue 43: an undamped mode lost its amplitude without a
    word). For each mode of frequency ``ω`` and damping ratio ``ζ``: at the run's mean step ``h`` the amplitude
    shrinks by :func:`spectral_radius` ``ρ(ωh)`` per step, so over ``n`` steps the share ``1 − ρ^{2n}`` of its
    energy is lost; counted when the numerical decay rate ``−ln ρ / h`` exceeds the mode's own ``c/2`` (the
    integrator, not the structure, damps it) and the mode oscillated with at least :data:`EXCITED_SHARE` of the largest
    oscillation energy ``½ k (Δq/2)²`` of its body's modes, moving its points by more than :data:`MIN_SWING` of
    the body's size. ``ω`` is the frequency its coordinate oscillated at in the run, the range of its rate over its
    range (a body's mode is not a mode of the machine)."""
    rho_inf = float(stats.get("rho_inf", DEFAULT_RHO_INF))
    steps, t_end = int(stats.get("steps", 0) or 0), float(stats.get("t_end", 0.0) or 0.0)
    if rho_inf >= 1.0 or steps < 1 or t_end <= 0.0:
        return []
    h = t_end / steps
    worst = None
    for body in bodies:
        key = f"body/{body.name}/modal_coordinates"
        if not getattr(body, "n_modes", 0) or key not in extremes.modal_range:
            continue
        low, high = extremes.modal_range[key]
        stiffness = np.asarray(body.modal_stiffness, dtype=float)
        energy = 0.5 * stiffness * (0.5 * (high - low)) ** 2
        if not energy.size or not np.max(energy) > 0.0:
            continue
        decay = 0.5 * np.asarray(body.modal_damping, dtype=float)  # 1/s, the mode's own amplitude decay rate
        # the frequency each coordinate oscillated at, range of its rate over its range (2Aω / 2A for A sin ωt):
        # in the machine a body's mode is not a mode of the system (a clamped beam swings below its free–free
        # frequencies); the rate weighs the faster components, which the integrator damps most
        rates = extremes.rates.get(key)
        if rates is None or rates[2] is None:
            continue
        swing = high - low
        omega = np.where(swing > 0.0, (rates[3] - rates[2]) / np.where(swing > 0.0, swing, 1.0), 0.0)
        omega = np.minimum(omega, np.pi / h)  # no faster than the samples can show
        shapes = np.asarray(body.node_translations, dtype=float)
        peak = np.linalg.norm(shapes, axis=1).max(axis=0) if shapes.size else np.zeros(omega.size)  # m per unit
        size = _body_size(np.asarray(body.node_positions, dtype=float))
        for j in np.flatnonzero(energy >= EXCITED_SHARE * np.max(energy)):
            if omega[j] <= 0.0 or 0.5 * (high[j] - low[j]) * peak[j] < MIN_SWING * size:
                continue  # a swing of round-off, not an oscillation
            rho = float(spectral_radius(omega[j] * h, rho_inf)[0])
            xi = -np.log(rho) / (omega[j] * h) if rho > 0.0 else np.inf
            share = 1.0 - rho ** (2.0 * steps)
            if xi * omega[j] > decay[j] and share > DISSIPATION_SHARE and (worst is None or share > worst[0]):
                worst = (share, body.name, int(j), omega[j], decay[j] / omega[j], xi)
    if worst is None:
        return []
    share, name, j, omega, zeta, xi = worst
    low, high = 1e-12 * t_end, h  # the largest mean step that keeps the loss below half the share (bisection)
    for _ in range(60):
        mid = np.sqrt(low * high)
        if 1.0 - float(spectral_radius(omega * mid, rho_inf)[0]) ** (2.0 * t_end / mid) > 0.5 * DISSIPATION_SHARE:
            high = mid
        else:
            low = mid
    return [f"the integrator's numerical dissipation (rho_inf = {rho_inf:g}, mean step {h:.3g} s over {steps} steps) "
            f"removed about {100 * share:.0f} % of the energy of mode {j + 1} of body {name!r} (oscillating at "
            f"{omega / 2 / np.pi:.4g} Hz, damping ratio {zeta:.3g}; numerical {xi:.2g}), more than "
            f"{100 * DISSIPATION_SHARE:.0f} %: its oscillation decays faster than the structure's; to keep it run with "
            f"max_step <= {low:.2g} s (or rho_inf nearer 1: less damping of the constraint drift too)"]
