"""The stepping API (issue 41 item 3): a run advanced in pieces is one simulate, a saved state replays bit for bit,
and an input set between advances is a step load (closed form of the undamped oscillator)."""
from __future__ import annotations

import numpy as np
import pytest

import flexmbs as fm
from flexmbs.model.rotations import rotation_about
from integration_tolerance import TIGHTER, assert_agree

MASS, STIFFNESS = 2.0, 800.0  # ω = 20 rad/s
OMEGA = np.sqrt(STIFFNESS / MASS)
RUN = dict(rho_inf=0.8, rtol=1e-6, atol=1e-9)


def _oscillator(load):
    """A 2 kg block on a rail (no gravity) held by an 800 N/m spring at its free length, pushed along the rail by
    ``load`` (N, a number or function of time) through a joint actuator."""
    model = fm.Model("oscillator", gravity=(0.0, 0.0, 0.0))
    block = model.add_rigid_body("block", mass=MASS, inertia=(0.01, 0.01, 0.01), position=(0.0, -0.5, 0.0))
    along = rotation_about("x", -np.pi / 2)  # the markers' z axis along global y
    rail = model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=along),
                           model.add_marker(block, "slide", orientation=along), name="rail")
    model.add_force(fm.SpringDamper(model.add_marker(model.ground, "hook"), model.add_marker(block, "eye"),
                                    stiffness=STIFFNESS, damping=0.0, free_length=0.5, name="spring"))
    model.add_force(fm.JointActuator(rail, load, name="push"))
    return model


def _sine(t):
    return 3.0 * np.sin(7.0 * t)


def test_advance_in_ten_pieces_equals_one_simulate():
    """``advance_to`` 0.1, 0.2, ..., 1.0 gives the motion of one ``simulate`` to 1.0 s within the integration error of
    the rtol-1e-6 runs (integration_tolerance.assert_agree against an rtol-1e-9 run: the pieces cut steps at their
    ends, so the step sequences differ)."""
    whole = fm.simulate(_oscillator(_sine), 1.0, **RUN)
    run = fm.Run(_oscillator(_sine), 1.0, **RUN)
    for k in range(1, 11):
        run.advance_to(0.1 * k)
        assert run.time == pytest.approx(0.1 * k, abs=1e-12)  # a step ends exactly at each piece's end
    pieces = run.finish()
    reference = fm.simulate(_oscillator(_sine), 1.0, **dict(RUN, rtol=RUN["rtol"] * TIGHTER,
                                                           atol=RUN["atol"] * TIGHTER))
    assert whole.statistics["engine"] == pieces.statistics["engine"]
    assert pieces.success and pieces.time[-1] == pytest.approx(1.0, abs=1e-12)
    assert_agree(whole, pieces, reference, ("body/block/position", "body/block/velocity", "joint/rail/translation"),
                 rtol=RUN["rtol"])


def test_saved_state_replays_bit_for_bit():
    """Save at 0.3 s, advance to 1 s, restore, advance to 1 s again: the same states and outputs to the last bit,
    and the results hold each time once."""
    run = fm.Run(_oscillator(_sine), 1.0, **RUN)
    run.advance_to(0.3)
    saved = run.save_state()
    run.advance_to(0.65)
    run.advance_to(1.0)
    first, out1 = run.state, run.output("joint/rail/translation")
    run.restore_state(saved)
    assert run.time == saved.t
    run.advance_to(0.65)
    run.advance_to(1.0)
    second, out2 = run.state, run.output("joint/rail/translation")
    for name in ("q", "v", "a", "qdd", "lam"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
    assert first.h_previous == second.h_previous and out1 == out2
    results = run.finish()
    assert np.all(np.diff(results.time) > 0.0)


def test_input_changed_at_half_a_second_is_a_step_load():
    """An ``fm.Input`` set from 0 to 10 N at 0.5 s: the block follows the closed form of an undamped oscillator
    under a step load, ``x = F/k (1 - cos ω (t - 0.5))``, to 1e-7 m (the run restarts its accelerations at the
    change; the same load applied from t = 0 has the same 8e-8 m error at atol 1e-11; 4e-6 of the 25 mm peak),
    and a model with the same step as a function of time gives the same motion within the integration error."""
    push = fm.Input("push", "N", start=0.0)
    run = fm.Run(_oscillator(push), 1.0, **dict(RUN, atol=1e-11))
    assert set(run.inputs) == {"push"}
    run.advance_to(0.5)
    run.set_input("push", 10.0)
    times = np.linspace(0.55, 1.0, 10)
    moved = []
    for t in times:
        run.advance_to(t)
        moved.append(run.output("joint/rail/translation"))
    held = run.finish()
    if held.statistics["engine"] == "compiled":
        assert "push" in run._slots  # a slot of the plan's signals, not a Python call per step
    start = held["joint/rail/translation"][0]
    closed = 10.0 / STIFFNESS * (1.0 - np.cos(OMEGA * (times - 0.5)))
    sign = np.sign(moved[-1] - start) or 1.0
    np.testing.assert_allclose(sign * (np.array(moved) - start), closed, atol=1e-7)
    before = np.asarray(held["joint/rail/translation"])[held.time <= 0.5]
    assert np.max(np.abs(before - start)) < 1e-12  # nothing moves while the input is 0

    def step(t):
        return 10.0 if t >= 0.5 else 0.0

    stepped = fm.simulate(_oscillator(step), 1.0, **RUN)
    reference = fm.simulate(_oscillator(step), 1.0, **dict(RUN, rtol=RUN["rtol"] * TIGHTER,
                                                          atol=RUN["atol"] * TIGHTER))
    assert_agree(stepped, held, reference, ("joint/rail/translation", "body/block/velocity"), rtol=RUN["rtol"])


def test_bad_requests_say_what_to_change():
    push = fm.Input("push", "N")
    run = fm.Run(_oscillator(push), 1.0, **RUN)
    run.advance_to(0.2)
    with pytest.raises(fm.ModelError, match="no input 'pul'.*'push'"):
        run.set_input("pul", 1.0)
    with pytest.raises(fm.ModelError, match="finite number"):
        run.set_input("push", float("nan"))
    with pytest.raises(fm.ModelError, match="before the run's time"):
        run.advance_to(0.1)
    with pytest.raises(fm.ModelError, match="no output"):
        run.output("joint/rail/rotaton")
    run.finish()
    with pytest.raises(fm.ModelError, match="finished"):
        run.advance_to(0.5)


def test_valve_command_input_on_the_compiled_circuit():
    """A hydraulic valve's command as an ``fm.Input`` (the valve–cylinder–arm of test_compiled_step): opened to 0.02
    at 0.05 s and closed at 0.3 s by ``set_input``, the compiled run (the input a slot of its plan's signals) moves
    the arm as the same model with that step command as a function of time, within the integration error of
    rtol-1e-7 runs (assert_agree against rtol 1e-10)."""
    from test_compiled_step import arm_model

    def stepped(t):
        return 0.02 if 0.05 <= t < 0.3 else 0.0

    valve = fm.Input("valve", "1", start=0.0)
    tight = dict(rho_inf=0.5, rtol=1e-7, atol=1e-9)
    run = fm.Run(arm_model(valve_command=valve), 0.6, **tight)
    assert run.engine == "compiled" and "valve" in run._slots
    run.advance_to(0.05)
    run.set_input("valve", 0.02)
    run.advance_to(0.3)
    run.set_input("valve", 0.0)
    run.advance_to(0.6)
    held = run.finish()
    reference = fm.simulate(arm_model(valve_command=stepped), 0.6, **dict(tight, rtol=1e-10, atol=1e-12))
    timed = fm.simulate(arm_model(valve_command=stepped), 0.6, **tight)
    assert np.ptp(held["element/hyd/cyl.force"]) > 1e3  # the valve moved the arm
    assert_agree(timed, held, reference, ("joint/pivot/rotation", "element/hyd/VA.pressure"), rtol=tight["rtol"])
