"""Stroke controls of seed 003 §4.2.3 and §4.4.3: the valve command, its PID and the views of the command the PID
reads, as signals of the circuit (docs/cases/platen-stroke.md, "Controls" and "The PID as a signal of its own").

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

:class:`StrokeCommand` reads, in the PID phase, its ``controller``: by default the :class:`StrokePID`, fed by three
:class:`StrokeQuantity` views of the command; any signal can replace it, e.g. an imported FMU (:mod:`.fmu`). The
laws are written once, in :mod:`.control_laws`, which the signals' kernels (``compiled_signal``) call.

Deceleration profiles (the ``√`` term above is ``"constant"``):

* ``"cubic-spline"`` (seed 003 L7047–7049, the PID runs): in time ``v(τ) = v_max − Δv (3σ² − 2σ³)``, ``σ = τ/T_d``,
  ``Δv = v_max − v_f``, followed in position (L6430) from the remaining travel ``D = T_d (v_max + v_f)/2`` on
  (:func:`spline_deceleration`);
* ``"time-ramp"`` (seed 003 Fig. 4-10 a, L6532–6542: the acceleration profile used for the deceleration):
  ``v = v_max − Δv τ/T_d``, its clock ``τ`` started where the constant profile starts to decelerate,
  ``r = (v_max² − v_f²)/(2 a_dec)``; a ramp shorter than that deceleration reaches ``v_f`` before the safety distance
  (the platen then creeps at ``v_f``).

Full-acceleration variant (seed 003 Fig. 4-10 b, L6526–6532): the valve is fully open from the start until the platen
reaches ``v_max`` (a latch state), then the profile without its time ramp.
"""
from __future__ import annotations

import math

import numpy as np

from fem.errors import ModelError
from fem.scalar_laws import interp_many
from hydraulics.core import Signal
from hydraulics.signals import as_signal

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
    a_f, a_d, g_f, g_d = (ar, ab, g_r, g_b) if direction > 0 else (ab, ar, g_b, g_r)  # fed and drained side
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.sqrt(np.maximum(pp * a_f - fr, 0.0) / (a_f**3 / g_f**2 + a_d**3 / g_d**2))
    return np.nan_to_num(v)


def spline_travel(sigma, v_max: float, v_final: float, duration: float):
    """Travel (m) covered along the cubic-spline deceleration after the normalised time ``σ = τ/T_d``
    (:func:`.control_laws.spline_travel`; a number or each entry of an array)."""
    from .control_laws import spline_travel as law  # here: the kernels compile (or load) on first use

    if np.ndim(sigma):
        return np.vectorize(lambda x: law(x, v_max, v_final, duration))(sigma)
    return law(sigma, v_max, v_final, duration)


def spline_deceleration(remaining, v_max: float, v_final: float, duration: float):
    """Cubic-spline deceleration reference ``(v, dv/dr)`` (m/s, 1/s) over the remaining travel ``r`` (m) to the
    safety distance: :func:`.control_laws.spline_deceleration` (equations there), at a number or each entry
    of an array."""
    from .control_laws import spline_deceleration as law

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

    The PID is a signal of its own (:class:`StrokePID`, ``self.controller``), fed by three views of this command
    (:class:`StrokeQuantity`: the speed error, the feed-forward command it tracks while off, its on flag). In the
    PID phase the command is the controller's value. ``controller`` replaces the built-in PID by any signal or
    function of time, e.g. the held output of an imported co-simulation FMU (docs/fmi.md): it then reads the three
    views from the results (``element/<circuit>/speed_error.value`` ...).

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
    controller : Signal or callable, optional
        The PID's command (V) in the PID phase (``pid`` only); default: a :class:`StrokePID` with the case's
        gains.
    """

    state_names = ("held_command", "latch", "deceleration_clock")
    state_units = ("V", "1", "s")
    unit = "V"

    def __init__(self, name: str, gap, params: dict, direction: int, max_velocity: float, deceleration: float,
                 pid: bool = False, full_acceleration: bool = False, deceleration_profile: str = "constant",
                 deceleration_time: float | None = None, controller=None):
        super().__init__(name)
        if deceleration_profile not in DECELERATION_PROFILES:
            raise ModelError(f"{name}: deceleration_profile must be one of {', '.join(DECELERATION_PROFILES)}, "
                             f"got {deceleration_profile!r}")
        if controller is not None and not pid:
            raise ModelError(f"{name}: a controller replaces the PID; give pid=True (a PID scenario) with it")
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
        self.quantities = {}
        self.controller = None
        if self.pid:
            self.quantities = {key: StrokeQuantity(key, self, key) for key in ("speed_error", "feed_forward", "pid_on")}
            if controller is None:
                controller = StrokePID("pid", self.quantities["speed_error"], self.quantities["feed_forward"],
                                       self.quantities["pid_on"], params)
            self.controller = as_signal(controller, "pid", unit="V")

    def _floats(self) -> list:
        """The command's floats (:data:`.control_laws.COMMAND_FLOATS`, then the velocity-voltage table)."""
        return [self.stroke, self.start_time, self.max_velocity, self.deceleration, self.acceleration,
                self.acceleration_end, self.final_velocity, self.safety_distance, self.limit,
                self.deceleration_time, self.trigger_distance(), HOLD_TIME, *self.table_v, *self.table_u]

    def _integers(self, index, controller: int = -1, quantity: int = 0) -> list:
        """The kernel's integers (:mod:`.control_laws`), ending in the ``controller``'s slot and the ``quantity``."""
        return [index.measurement_index(self.gap), self.state_offset, self.direction, int(self.pid),
                int(self.full_acceleration), DECELERATION_PROFILES.index(self.profile), len(self.table_v), controller,
                quantity]

    def inputs(self):
        return ([self.controller] if self.controller is not None else []) + list(self.quantities.values())

    def measurements(self):
        return [self.gap]

    def trigger_distance(self) -> float:
        """Remaining travel (m) to the safety distance at which the deceleration starts."""
        return trigger_distance(self.profile, self.max_velocity, self.final_velocity, self.deceleration,
                                self.deceleration_time)

    def compiled_signal(self, index):
        """``(address, floats, integers, output keys)``: this controller's numba kernel for the circuit's compiled
        step (:mod:`.control_laws`, where the layout of the floats and integers is described)."""
        from .control_laws import stroke_command_kernel

        integers = self._integers(index, -1 if self.controller is None else index.signal(self.controller))
        return stroke_command_kernel.address, self._floats(), integers, list(self.output_units())

    def output_units(self) -> dict[str, str]:
        return {"value": "V", "velocity_reference": "m/s", "phase": "1"}


class StrokeQuantity(Signal):
    """A view of a :class:`StrokeCommand` that its PID reads: ``"speed_error"`` ``e = direction v_ref − ṡ`` (m/s,
    closing positive), ``"feed_forward"`` the open-loop command (V) the PID tracks while off, ``"pid_on"`` 1 in the
    PID phase, else 0 (:func:`.control_laws.command_quantity`)."""

    UNITS = {"speed_error": "m/s", "feed_forward": "V", "pid_on": "1"}

    def __init__(self, name: str, command: StrokeCommand, quantity: str):
        super().__init__(name)
        if quantity not in self.UNITS:
            raise ModelError(f"{name}: quantity must be one of {', '.join(self.UNITS)}, got {quantity!r}")
        self.command, self.quantity = command, quantity
        self.unit = self.UNITS[quantity]

    def measurements(self):
        return [self.command.gap]

    def compiled_signal(self, index):
        """The command's kernel, computing this view (quantity code after the command's integers)."""
        from .control_laws import QUANTITIES, stroke_command_kernel

        integers = self.command._integers(index, quantity=QUANTITIES.index(self.quantity))
        return stroke_command_kernel.address, self.command._floats(), integers, ["value"]


class StrokePID(Signal):
    """The stroke's PID (seed 003 eq. (4-12)) as a signal of its own: the command (V) from the speed error, with
    back-calculation anti-windup while on and tracking of ``track`` while off (bumpless transfer);
    :func:`.control_laws.pid_law` is its one law.

    Parameters
    ----------
    error, track, on : Signal
        Speed error (m/s), the command to follow while off (V), on flag (> 0.5: on).
    params : dict
        ``pid_gain`` (V/(m/s)), ``pid_integral_time``, ``pid_derivative_time``, ``pid_filter_time``,
        ``tracking_time`` (s), ``command_limit`` (V).
    """

    state_names = ("integral", "derivative_filter")
    state_units = ("V", "m/s")
    unit = "V"

    def __init__(self, name: str, error: Signal, track: Signal, on: Signal, params: dict):
        super().__init__(name)
        self.error, self.track, self.on = error, track, on
        kp, ti, td, tf = (params[k] for k in ("pid_gain", "pid_integral_time", "pid_derivative_time",
                                              "pid_filter_time"))
        self._fpar = np.array([kp, kp / ti, kp * td / tf, tf, params["command_limit"], params["tracking_time"]])

    def inputs(self):
        return [self.error, self.track, self.on]

    def compiled_signal(self, index):
        """``(address, floats, integers, output keys)``: :func:`.control_laws.stroke_pid_kernel`."""
        from .control_laws import stroke_pid_kernel

        integers = [index.signal(self.error), index.signal(self.track), index.signal(self.on), self.state_offset]
        return stroke_pid_kernel.address, list(self._fpar), integers, ["value"]
