"""Case platen-stroke on the compiled step: the stroke controller's kernel (cases/platen_stroke/control_laws.py,
its one implementation) visits every phase at random points (rest, acceleration, PID, open loop, final, stop, full
open) for each deceleration profile, with finite rates, forces and outputs; the stroke simulated with the circuit
on the compiled step and called back as a Python element must agree within the integration tolerance.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import flexmbs as fm
from cases.machine_creeping.hydraulic import StopAfter
from cases.platen_stroke import parameters
from cases.platen_stroke.circuit import build_circuit
from cases.platen_stroke.controls import StrokeCommand
from cases.platen_stroke.model import build_mechanism
from cases.platen_stroke.simulation import build_model, scenario_settings
from hydraulics.layout import compile_circuit
from integration_tolerance import FACTOR, TIGHTER, as_callbacks

SCENARIOS = ("close", "open", "close-pid", "open-pid", "close-full-acceleration", "close-abrupt-deceleration")


def circuit_of(scenario):
    p = parameters({"scenario": scenario})
    _, handles, _ = build_model(p)
    return handles["circuit"], p


def assert_kernel_runs(circuit, p, rng, n=300):
    """The compiled circuit at ``n`` random points: finite rates, forces and outputs; returns the phases visited."""
    compiled, why = compile_circuit(circuit)
    assert compiled is not None, why
    n_z, n_y = circuit.n_states, len(circuit.measurements)
    gap = circuit.measurement_index(circuit.component("controller").gap)
    phases = set()
    for _ in range(n):
        t = rng.choice([rng.uniform(0.0, 0.1), rng.uniform(0.1, 0.6), rng.uniform(0.6, 6.0)])
        z = circuit.initial_state() + rng.normal(size=n_z) * np.where(np.abs(circuit.initial_state()) > 1e3, 20e5, 1.0)
        for k, name in enumerate(circuit.state_names):  # the latch on and off, the ramp clock before and after
            if name.endswith("latch"):
                z[k] = rng.choice([0.0, 1.0])
            elif name.endswith("deceleration_clock"):
                z[k] = rng.uniform(0.0, 1.0)
        y = np.array([1.0 + rng.uniform(0.0, 2.5) for _ in range(n_y)])
        end = p["stroke"] - p["safety_distance"]  # travel: anywhere, the deceleration zones, the final creep
        travel = rng.choice([rng.uniform(-0.1, p["stroke"] + 0.1), end - rng.uniform(0.0, 0.8),
                             end + rng.uniform(0.0, 0.1), p["safety_distance"] + rng.uniform(-0.1, 0.8)])
        y[gap] = p["stroke"] + 1.0 - travel
        ydot = rng.normal(size=n_y) * 0.3
        out = circuit.outputs(t, z, y, ydot)
        assert np.all(np.isfinite(circuit.rates(t, z, y, ydot))) and np.all(np.isfinite(list(out.values())))
        phases.add(int(out["controller.phase"]))
    return phases


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_controller_kernel_visits_every_phase(scenario):
    circuit, p = circuit_of(scenario)
    phases = assert_kernel_runs(circuit, p, np.random.default_rng(len(scenario)))
    assert len(phases) >= 4  # rest, acceleration, final and the scenario's own (pid, open loop, stop, full open)


def test_emergency_stop_command_kernel_runs():
    """The machine-creeping emergency stop (cases.machine_creeping.hydraulic.StopAfter, its own kernel reading the
    controller's slot) around the stop time 1 s."""
    p = parameters({"scenario": "close"})
    settings = scenario_settings(p)
    _, handles = build_mechanism(p, open_position=True)
    controller = StrokeCommand("controller", handles["gap"], p, 1, settings["max_velocity"], settings["deceleration"])
    circuit = build_circuit(p, handles, 1, settings["max_velocity"], settings["deceleration"],
                            command=StopAfter("stop", controller, 1.0))
    compiled, why = compile_circuit(circuit)
    assert compiled is not None, why
    assert_kernel_runs(circuit, p, np.random.default_rng(7))


WINDOW = 0.02  # s: the runs' largest step (max_step): how far apart two runs may see the command's phase switch


def test_pid_stroke_on_the_compiled_step_matches_the_python_path():
    """Scenario close-pid, the first 2 s (rest, acceleration, PID at constant speed), at rtol 1e-6, with the
    circuit's kernel and with the circuit as a user's Python element called back (integration_tolerance.as_callbacks):
    the same equations, so they differ by integration error only: travel within 0.1 mm (measured 0.02 mm),
    pressures within 2e-4 of their range (5e-5); the command within FACTOR x the integration error of the runs
    against an rtol-1e-9 run, away from its phase switch (a jump, located by each run's own steps), and the switch
    times within one largest step of the reference's."""
    runs = {}
    for engine in ("compiled", "python"):
        p = parameters({"scenario": "close-pid"})
        model, handles, _ = build_model(p)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if engine == "python":  # its elements as a user's Python elements, called back
                as_callbacks(model)
            runs[engine] = fm.simulate(model, 2.0, rtol=1e-6, atol=1e-7, max_step=0.02,
                                       output_interval=p["output_interval"])
    fast, slow = runs["compiled"], runs["python"]
    assert fast.statistics["engine"] == "compiled"

    def both(key):
        return np.interp(slow.time, fast.time, np.asarray(fast[key]).reshape(-1)), np.asarray(slow[key]).reshape(-1)

    a, b = both(f"element/hydraulics/y/{handles['gap'].name}")
    assert np.max(np.abs(a - b)) < 1e-4 and np.ptp(b) > 0.5  # the platen moved (1 m)
    for node in ("rod", "bore"):
        a, b = both(f"element/hydraulics/{node}.pressure")
        assert np.max(np.abs(a - b)) < 2e-4 * np.ptp(b), node
    # the command switches phase at t ≈ 1.1 s (a jump): where each run switches depends on its steps (and on the
    # CPU's rounding), so the command is compared away from the switches, within the runs' integration error there
    # (assert_agree's rule against an rtol-1e-9 run), and the switch times within the window left out
    p = parameters({"scenario": "close-pid"})
    model, _, _ = build_model(p)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = fm.simulate(model, 2.0, rtol=1e-6 * TIGHTER, atol=1e-7 * TIGHTER, max_step=0.02,
                                output_interval=p["output_interval"])
    key, phase = "element/hydraulics/controller.value", "element/hydraulics/controller.phase"
    switches = {}
    for name, res in (("fast", fast), ("slow", slow), ("reference", reference)):
        ph = np.asarray(res[phase]).reshape(-1)
        switches[name] = np.asarray(res.time)[1:][np.diff(ph) != 0]
    assert len({s.size for s in switches.values()}) == 1, switches
    times = np.concatenate(list(switches.values()))
    assert all(np.max(np.abs(s - switches["reference"])) < WINDOW for s in switches.values()), switches
    grid = np.asarray(slow.time)
    away = np.all(np.abs(grid[:, None] - times[None, :]) > 2 * WINDOW, axis=1)

    def command(res):
        return np.interp(grid, res.time, np.asarray(res[key]).reshape(-1))

    u_fast, u_slow, u_ref = command(fast), command(slow), command(reference)
    error = float(np.max(np.abs(u_fast - u_ref)[away]))
    difference = float(np.max(np.abs(u_fast - u_slow)[away]))
    assert difference <= FACTOR * error + 1e-6 * float(np.max(np.abs(u_ref))), (difference, error)
    assert 2.0 in set(np.asarray(slow["element/hydraulics/controller.phase"]))  # the PID ran
