"""Stroke controls of seed 003 §4.2.3 and §4.4.3 as one signal with the PID states.

Velocity reference (wave2-spec B.2 interpretation): ``v_ref = min(a_acc (t - t0), v_max, √(v_f² + 2 a_dec r))`` with
the remaining travel ``r`` to the safety distance (time-based acceleration, position-based deceleration), ``v_f``
over the last ``d_s``; after the end of an opening stroke ``v_ref = 0``. The open-loop command is the velocity–voltage
table (seed Fig. 4-6; ours is the steady-state inverse of the model's valve, :func:`steady_velocity`).

PID variant (seed 003 eq. (4-12), L7031–7039): the open-loop command during the time-based acceleration, the PID
``u = K_P e + I + K_P T_D (e − ξ)/T`` (``I' = K_P e/T_I``, ``ξ' = (e − ξ)/T``) on ``e = v_ref − v`` during the
constant-velocity and deceleration phases, switched off when the reference reaches the final velocity (then the
last PID command is held constant until impact).
While off, the integral state tracks the open-loop command (bumpless transfer, assumed). Output saturated at ±10 V
with back-calculation anti-windup.

Deceleration profiles (the ``√`` term above is ``"constant"``):

* ``"cubic-spline"`` (seed 003 L7047–7049, the PID runs): in time, ``v(τ) = v_max − Δv (3σ² − 2σ³)``, ``σ = τ/T_d``,
  ``Δv = v_max − v_f`` — C¹, zero slope at both ends, from ``v_max`` to ``v_f`` in ``T_d``. It covers
  ``s(σ) = T_d (v_max σ − Δv σ³ + Δv σ⁴/2)``, in total ``D = s(1) = T_d (v_max + v_f)/2`` (the cubic's mean is the
  mean of its end values). Position-based like the seed's deceleration (L6430): it starts at the remaining travel
  ``r = D`` to the safety distance and ``σ(r)`` solves ``s(σ) = D − r``, so a platen that follows it exactly
  decelerates along the cubic in time and reaches ``v_f`` at the safety distance. ``dv/dr = 6 Δv σ(1−σ)/(T_d v)``.
* ``"time-ramp"`` (seed 003 Fig. 4-10 a, L6532–6542: the acceleration profile used for the deceleration): the
  time-based linear ramp of the acceleration phase run backwards, ``v = v_max − Δv τ/T_d``, its clock ``τ`` started
  by position where the standard profile starts to decelerate, ``r = (v_max² − v_f²)/(2 a_dec)``: only the form of
  the deceleration changes, not where it begins. A ramp shorter than the standard deceleration reaches ``v_f``
  before the safety distance (the platen then creeps at ``v_f``).

Full-acceleration variant (seed 003 Fig. 4-10 b, L6526–6532): the valve is fully open from the start until the platen
reaches ``v_max`` (a latch state), then the profile without its time ramp.
"""
from __future__ import annotations

import math

import numpy as np

from fem.errors import ModelError
from fem.scalar_laws import interp, interp_many
from hydraulics.core import Evaluation, Signal

HOLD_TIME = 1e-3  # s, time constant of the command latch (holds the last PID output at switch-off)
DECELERATION_PROFILES = ("constant", "cubic-spline", "time-ramp")
PHASES = {"rest": 0, "acceleration": 1, "pid": 2, "open_loop": 3, "final": 4, "stop": 5, "full_open": 6}


def valve_gains(command, params: dict, linear: bool = False):
    """Flow gains ``(γ_rod_edge, γ_bore_edge)`` (m³/(s √Pa)) of the metering edges at |command| (V).

    Fine metering: linear in ``u`` with the seed's ``α, β`` (seed 003:L6894) up to ``fine_metering_command``, then
    linear in area up to the calibrated full-open gain at ``command_limit``. ``linear``: ``α|u|, β|u|`` throughout
    (the eq. (4-4) assumption).
    """
    u = np.abs(np.asarray(command, dtype=float))
    alpha, beta = params["flow_gain_rod"], params["flow_gain_bore"]
    if linear:
        g_rod = alpha * u
    else:
        u1, lim = params["fine_metering_command"], params["command_limit"]
        g_rod = interp_many(np.atleast_1d(u).ravel(), np.array([0.0, u1, lim]),
                            np.array([0.0, alpha * u1, params["full_flow_gain_rod"]])).reshape(u.shape)
    return g_rod, g_rod * beta / alpha


def steady_velocity(command, params: dict, direction: int, supply_pressure: float | None = None,
                    linear: bool = False):
    """Steady platen speed (m/s) at a constant command (V): seed 003 eq. (4-7) with the edge gains of the valve.

    Closing (``direction=+1``, rod side fed): ``v = √((PP A_r − F_r)/(A_r³/γ_r² + A_b³/γ_b²))``; opening: the same
    with the roles of the chambers swapped. ``F_r = μ_d m g``.
    """
    pp = params["supply_pressure"] if supply_pressure is None else supply_pressure
    ab = 2.0 * math.pi / 4.0 * params["bore_diameter"] ** 2
    ar = ab - 2.0 * math.pi / 4.0 * params["rod_diameter"] ** 2
    fr = params["dynamic_friction"] * params["platen_mass"] * params["gravity"]
    g_r, g_b = valve_gains(command, params, linear)
    with np.errstate(divide="ignore", invalid="ignore"):
        if direction > 0:
            v = np.sqrt(np.maximum(pp * ar - fr, 0.0) / (ar**3 / g_r**2 + ab**3 / g_b**2))
        else:
            v = np.sqrt(np.maximum(pp * ab - fr, 0.0) / (ab**3 / g_b**2 + ar**3 / g_r**2))
    return np.nan_to_num(v)


def spline_travel(sigma, v_max: float, v_final: float, duration: float):
    """Travel (m) covered along the cubic-spline deceleration after the normalised time ``σ = τ/T_d``
    (:func:`.compiled_controls.spline_travel`; a number or each entry of an array)."""
    from .compiled_controls import spline_travel as law  # here: the kernels compile (or load) on first use

    if np.ndim(sigma):
        return np.vectorize(lambda x: law(x, v_max, v_final, duration))(sigma)
    return law(sigma, v_max, v_final, duration)


def spline_deceleration(remaining, v_max: float, v_final: float, duration: float):
    """Cubic-spline deceleration reference ``(v, dv/dr)`` (m/s, 1/s) over the remaining travel ``r`` (m) to the
    safety distance: :func:`.compiled_controls.spline_deceleration` (equations there), at a number or each entry
    of an array."""
    from .compiled_controls import spline_deceleration as law

    if np.ndim(remaining):
        return np.vectorize(lambda r: law(r, v_max, v_final, duration))(remaining)
    return law(remaining, v_max, v_final, duration)


def trigger_distance(profile: str, v_max: float, v_final: float, deceleration: float,
                     duration: float | None) -> float:
    """Remaining travel (m) to the safety distance at which a deceleration profile leaves ``v_max``.

    ``constant`` and ``time-ramp``: ``(v_max² − v_f²)/(2 a)`` (where the √-profile leaves ``v_max``);
    ``cubic-spline``: ``T_d (v_max + v_f)/2`` (the spline's mean speed is ``(v_max + v_f)/2`` over ``T_d``).
    """
    if profile in ("constant", "time-ramp"):
        return (v_max**2 - v_final**2) / (2.0 * deceleration)
    return 0.5 * duration * (v_max + v_final)


def command_table(params: dict, direction: int, n: int = 81) -> tuple[np.ndarray, np.ndarray]:
    """Velocity–voltage table (m/s → V, magnitudes), the stand-in for seed Fig. 4-6."""
    u = np.linspace(0.0, params["command_limit"], n)
    return steady_velocity(u, params, direction), u


class StrokeCommand(Signal):
    """Valve command (V) of a closing (``direction=+1``) or opening (``-1``) stroke; see the module docstring.

    Parameters
    ----------
    gap : flexmbs measurement
        Distance whose value is ``stroke + 1 m − travel`` (travel from the open position, m).
    params : dict
        Case parameters (controls section).
    direction : +1 closing or -1 opening
    max_velocity : float, m/s
    deceleration : float, m/s²
    pid : bool
        PID active in the constant-velocity and deceleration phases.
    deceleration_profile : "constant" | "cubic-spline" | "time-ramp"
        See the module docstring; the last two use ``deceleration_time`` (s); ``time-ramp`` is triggered where the
        ``deceleration`` (m/s²) profile would start.
    """

    state_names = ("integral", "derivative_filter", "held_command", "latch", "deceleration_clock")
    state_units = ("V", "m/s", "V", "1", "s")
    unit = "V"

    def __init__(self, name: str, gap, params: dict, direction: int, max_velocity: float, deceleration: float,
                 pid: bool = False, full_acceleration: bool = False, deceleration_profile: str = "constant",
                 deceleration_time: float | None = None):
        super().__init__(name)
        if deceleration_profile not in DECELERATION_PROFILES:
            raise ModelError(f"{name}: deceleration_profile must be one of {', '.join(DECELERATION_PROFILES)}, "
                             f"got {deceleration_profile!r}")
        self.profile = deceleration_profile
        self.deceleration_time = float(deceleration_time) if deceleration_time is not None else math.nan
        self.gap, self.direction, self.pid = gap, int(direction), bool(pid)
        self.full_acceleration = bool(full_acceleration)
        self.stroke = params["stroke"]
        self.start_time = params["start_time"]
        self.max_velocity, self.deceleration = float(max_velocity), float(deceleration)
        self.acceleration = params["max_velocity_close" if direction > 0 else "max_velocity_open"] / \
            params["acceleration_time"]
        self.acceleration_end = self.start_time + self.max_velocity / self.acceleration
        self.final_velocity, self.safety_distance = params["final_velocity"], params["safety_distance"]
        self.table_v, self.table_u = (np.asarray(a, dtype=float) for a in command_table(params, direction))
        self.limit = params["command_limit"]
        self.kp, self.ti = params["pid_gain"], params["pid_integral_time"]
        self.td, self.tf = params["pid_derivative_time"], params["pid_filter_time"]
        self.tracking = params["tracking_time"]

    def measurements(self):
        return [self.gap]

    def _travel(self, ev: Evaluation):
        y, dy = ev.measurement(self.gap)
        yd, dyd = ev.measurement_rate(self.gap)
        return self.stroke + 1.0 - y, -dy, -yd, -dyd

    def reference(self, ev: Evaluation):
        """``(v_ref, gradient, phase)``: the speed magnitude of the profile (m/s)."""
        if ev.t <= self.start_time:
            return 0.0, ev.zero(), "rest"
        s, ds, _, _ = self._travel(ev)
        if self.direction > 0:
            remaining, d_remaining = self.stroke - self.safety_distance - s, -ds
        else:
            remaining, d_remaining = s - self.safety_distance, ds
            if s <= 0.0:
                return 0.0, ev.zero(), "stop"
        if remaining <= 0.0:
            return self.final_velocity, ev.zero(), "final"
        candidates = [(self.acceleration * (ev.t - self.start_time), ev.zero()), (self.max_velocity, ev.zero()),
                      self._deceleration(ev, remaining, d_remaining)]
        if self.full_acceleration and ev.t < self.acceleration_end:
            if self.own_state(ev, 3)[0] < 0.5:  # valve fully open until the platen reaches v_max (Fig. 4-10 b)
                return candidates[0][0], ev.zero(), "full_open"
            candidates = candidates[1:]  # latched: the time ramp is over
        v, dv = min(candidates, key=lambda c: c[0])
        phase = "acceleration" if ev.t < self.acceleration_end else ("pid" if self.pid else "open_loop")
        return v, dv, phase

    def trigger_distance(self) -> float:
        """Remaining travel (m) to the safety distance at which the deceleration starts."""
        return trigger_distance(self.profile, self.max_velocity, self.final_velocity, self.deceleration,
                                self.deceleration_time)

    def _deceleration(self, ev: Evaluation, remaining: float, d_remaining):
        """``(v, gradient)`` of the deceleration profile at the remaining travel (m)."""
        if self.profile == "cubic-spline":
            v, slope = spline_deceleration(remaining, self.max_velocity, self.final_velocity, self.deceleration_time)
            return v, slope * d_remaining
        if self.profile == "time-ramp":
            tau, d_tau = self.own_state(ev, 4)
            frac = tau / self.deceleration_time
            if frac >= 1.0:
                return self.final_velocity, ev.zero()
            dv = self.max_velocity - self.final_velocity
            return self.max_velocity - dv * frac, -dv / self.deceleration_time * d_tau
        v_dec = math.sqrt(self.final_velocity**2 + 2.0 * self.deceleration * remaining)
        return v_dec, self.deceleration / v_dec * d_remaining

    def feed_forward(self, v: float, dv):
        """Open-loop command (V, signed: closing negative) from the velocity–voltage table."""
        u, slope = interp(v, self.table_v, self.table_u)
        return -self.direction * u, -self.direction * slope * dv

    def _pid(self, ev: Evaluation, v_ref: float, dv_ref):
        """Unsaturated PID output and the error (signed speeds, closing positive)."""
        _, _, sdot, dsdot = self._travel(ev)
        e, de = self.direction * v_ref - sdot, self.direction * dv_ref - dsdot
        integral, di = self.own_state(ev, 0)
        xi, dxi = self.own_state(ev, 1)
        kd = self.kp * self.td / self.tf
        return self.kp * e + integral + kd * (e - xi), self.kp * de + di + kd * (de - dxi), e, de

    def _pid_output(self, ev: Evaluation, v: float, dv):
        u, du, _, _ = self._pid(ev, v, dv)
        if abs(u) > self.limit:
            return math.copysign(self.limit, u), ev.zero()
        return u, du

    def evaluate(self, ev: Evaluation):
        v, dv, phase = self.reference(ev)
        if phase == "pid":
            return self._pid_output(ev, v, dv)
        if phase == "full_open":
            return -self.direction * self.limit, ev.zero()
        if self.pid and phase == "final":  # switched off: the last PID command is held until impact
            return self.own_state(ev, 2)
        return self.feed_forward(v, dv)

    def state_rates(self, ev: Evaluation):
        v, dv, phase = self.reference(ev)
        u, du, e, de = self._pid(ev, v, dv)
        if phase == "pid":
            u_sat, du_sat = ev.signal(self)
            d_integral = (self.kp / self.ti * e + (u_sat - u) / self.tracking,
                          self.kp / self.ti * de + (du_sat - du) / self.tracking)
        else:  # bumpless transfer: the PID output follows the open-loop command while off
            uf, duf = self.feed_forward(v, dv)
            d_integral = ((uf - u) / self.tracking, (duf - du) / self.tracking)
        xi, dxi = self.own_state(ev, 1)
        held, d_held = self.own_state(ev, 2)
        if phase == "final" and self.pid:
            d_hold = (0.0, ev.zero())
        else:  # follows the command (first-order, 1 ms) so that it holds the last value at switch-off
            u_now, du_now = (self._pid_output(ev, v, dv) if phase == "pid" else self.feed_forward(v, dv))
            d_hold = ((u_now - held) / HOLD_TIME, (du_now - d_held) / HOLD_TIME)
        latch, d_latch = self.own_state(ev, 3)
        _, _, sdot, _ = self._travel(ev)
        target = 1.0 if self.full_acceleration and (latch >= 0.5 or self.direction * sdot >= self.max_velocity) else 0.0
        clock = 0.0  # the time-ramp deceleration's clock runs once the platen has passed its trigger position
        if self.profile == "time-ramp" and ev.t > self.start_time:
            s, _, _, _ = self._travel(ev)
            remaining = self.stroke - self.safety_distance - s if self.direction > 0 else s - self.safety_distance
            clock = 1.0 if remaining <= self.trigger_distance() else 0.0
        return [d_integral, ((e - xi) / self.tf, (de - dxi) / self.tf), d_hold,
                ((target - latch) / HOLD_TIME, -d_latch / HOLD_TIME), (clock, ev.zero())]

    def compiled_signal(self, index):
        """``(address, floats, integers, output keys)``: this controller's numba kernel for the circuit's compiled
        step (:mod:`.compiled_controls`, where the layout of the floats and integers is described)."""
        from .compiled_controls import stroke_command_kernel

        floats = [self.stroke, self.start_time, self.max_velocity, self.deceleration, self.acceleration,
                  self.acceleration_end, self.final_velocity, self.safety_distance, self.limit, self.kp,
                  self.kp / self.ti, self.kp * self.td / self.tf, self.tf, self.tracking, self.deceleration_time,
                  self.trigger_distance(), HOLD_TIME, *self.table_v, *self.table_u]
        integers = [index.measurement_index(self.gap), self.state_offset, self.direction, int(self.pid),
                    int(self.full_acceleration), DECELERATION_PROFILES.index(self.profile), len(self.table_v)]
        return stroke_command_kernel.address, floats, integers, ["value", "velocity_reference", "phase"]

    def outputs(self, ev: Evaluation):
        v, _, phase = self.reference(ev)
        return {"value": (ev.signal(self)[0], "V"), "velocity_reference": (self.direction * v, "m/s"),
                "phase": (float(PHASES[phase]), "1")}
