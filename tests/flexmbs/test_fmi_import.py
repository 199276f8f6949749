"""Issue 47, import: the Modelica Reference FMUs (built from source during the test, reference_fmus.py) inside flexmbs
models. Model Exchange: the FMU's states integrated by the engine's implicit solver against the closed form
(Dahlquist) and a converged solution (VanDerPol) to 1e-6; co-simulation: Dahlquist's own fixed-step solver sampled
as a block that pushes a mass, against the closed form of that zero-order hold."""
from __future__ import annotations

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy", reason="the fmi extra: pip install 'flexmbs[fmi]'")

import flexmbs as fm  # noqa: E402
from flexmbs.fmi import FMU  # noqa: E402
from flexmbs.model.rotations import rotation_about  # noqa: E402
from reference_fmus import reference_fmus  # noqa: E402

TIGHT = dict(rtol=1e-9, atol=1e-11, max_step=0.01)


@pytest.fixture(scope="module")
def fmus():
    return reference_fmus()


def _host(element=None):
    """A model for an FMU alone: a body at rest on a fixed joint (the FMU's states are the only motion)."""
    model = fm.Model("host", gravity=(0.0, 0.0, 0.0))
    body = model.add_rigid_body("body", mass=1.0, inertia=(0.1, 0.1, 0.1))
    model.add_joint("fixed", model.add_marker(model.ground, "base"), model.add_marker(body, "seat"), name="seat")
    if element is not None:
        model.add_element(element)
    return model


def test_dahlquist_model_exchange_against_its_closed_form(fmus):
    """``ẋ = -k x``, x(0) = 1, k = 1: x(t) = e^(-t) to 1e-6 over 3 s (its states integrated with the machine's)."""
    element = FMU(fmus["Dahlquist"], outputs=["x"], name="dahlquist")
    assert element.state_names == ["x"]
    res = fm.simulate(_host(element), 3.0, **TIGHT)
    assert res.success, res.message
    x = np.asarray(res["element/dahlquist/x"])
    assert np.max(np.abs(x - np.exp(-res.time))) < 1e-6
    assert res.time[-1] == pytest.approx(3.0)


def test_dahlquist_parameter_is_set(fmus):
    """``parameters={"k": 2}``: x(t) = e^(-2 t) to 1e-6."""
    element = FMU(fmus["Dahlquist"], outputs=["x"], parameters={"k": 2.0}, name="fast")
    res = fm.simulate(_host(element), 1.0, **TIGHT)
    assert np.max(np.abs(np.asarray(res["element/fast/x"]) - np.exp(-2.0 * res.time))) < 1e-6


def test_van_der_pol_model_exchange_against_a_converged_solution(fmus):
    """``ẍ0 = μ (1 - x0²) ẋ0 - x0`` (μ = 1, x0 = 2, x1 = 0) over 5 s: x0 and x1 equal scipy's DOP853 at rtol
    1e-12 (a converged reference) to 1e-6."""
    from scipy.integrate import solve_ivp

    element = FMU(fmus["VanDerPol"], outputs=["x0", "x1"], name="vdp")
    res = fm.simulate(_host(element), 5.0, **TIGHT)
    assert res.success, res.message
    ref = solve_ivp(lambda t, x: [x[1], (1.0 - x[0] ** 2) * x[1] - x[0]], (0.0, 5.0), [2.0, 0.0],
                    method="DOP853", rtol=1e-12, atol=1e-12, dense_output=True)
    expected = ref.sol(res.time)
    assert np.max(np.abs(np.asarray(res["element/vdp/x0"]) - expected[0])) < 1e-6
    assert np.max(np.abs(np.asarray(res["element/vdp/x1"]) - expected[1])) < 1e-6


def test_dahlquist_co_simulation_block_pushes_a_mass(fmus):
    """Dahlquist as a co-simulation FMU (its own explicit Euler, fixed step 0.1 s) sampled at 0.1 s: its outputs are
    x_k = 0.9^k, held over each step as the force (N) on a 2 kg block on a frictionless rail, so the block's speed at
    t_n = 0.1 n is (1 - 0.9^n) / m (zero-order hold, exact); it agrees to 1e-9 m/s, advanced in pieces by ``fm.Run``
    and in one piece by ``fm.simulate`` (a Run advanced to t_end: it samples the block on the way)."""
    mass = 2.0
    block = FMU(fmus["Dahlquist"], outputs=["x"], kind="co-simulation", step=0.1, name="dq")
    model = fm.Model("pushed", gravity=(0.0, 0.0, 0.0))
    body = model.add_rigid_body("block", mass=mass, inertia=(0.01, 0.01, 0.01))
    along = rotation_about("y", np.pi / 2)
    rail = model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=along),
                           model.add_marker(body, "slide", orientation=along), name="rail")
    model.add_force(fm.JointActuator(rail, block.output("x"), name="push"))
    run = fm.Run(model, 1.0, **TIGHT)
    for k in range(1, 11):
        run.advance_to(0.1 * k)
    for res in (run.finish(), fm.simulate(model, 1.0, **TIGHT)):
        assert res.success, res.message
        n = np.arange(1, 11)
        held = np.interp(0.1 * n - 0.05, res.time, np.asarray(res["force/push/load"]))  # mid-hold values
        assert np.allclose(held, 0.9 ** (n - 1), atol=1e-12)
        at = [int(np.argmin(np.abs(res.time - 0.1 * k))) for k in n]
        speed = np.linalg.norm(np.asarray(res["body/block/velocity"])[at], axis=1)
        assert np.max(np.abs(speed - (1.0 - 0.9 ** n) / mass)) < 1e-9


def test_feedthrough_model_exchange_couples_a_measurement_to_a_force(fmus):
    """The Feedthrough FMU (``y = u``) between a rail's translation (input) and the force along it (output): an
    anti-spring ``m ẍ = x`` (1 N/m, m = 1 kg) released at x0 = 0.1 m follows ``x0 cosh t`` to 1e-6 m over 1 s."""
    model = fm.Model("antispring", gravity=(0.0, 0.0, 0.0))
    body = model.add_rigid_body("block", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.1, 0.0, 0.0))
    along = rotation_about("y", np.pi / 2)  # the markers' z axis along global x
    rail = model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=along),
                           model.add_marker(body, "slide", orientation=along),
                           name="rail")
    coordinate = fm.JointCoordinate(rail)
    model.add_element(FMU(fmus["Feedthrough"], inputs={"Float64_continuous_input": coordinate},
                          outputs={"Float64_continuous_output": coordinate}, name="through"))
    res = fm.simulate(model, 1.0, **TIGHT)
    assert res.success, res.message
    x = np.asarray(res["joint/rail/translation"])
    assert abs(x[0] - 0.1) < 1e-12
    assert np.max(np.abs(x - 0.1 * np.cosh(res.time))) < 1e-6
    assert np.allclose(res["element/through/Float64_continuous_output"], x, atol=1e-12)


def test_bad_requests_say_what_to_change(fmus, tmp_path):
    """One line each: an FMU with state events (BouncingBall) as Model Exchange, an unknown output, a missing file,
    a co-simulation block's output used by fm.simulate (above), a co-simulation FMU without a step."""
    with pytest.raises(fm.ModelError, match="event indicator"):
        FMU(fmus["BouncingBall"])
    with pytest.raises(fm.ModelError, match="no variable 'y'.*x"):
        FMU(fmus["Dahlquist"], outputs=["y"])
    with pytest.raises(fm.ModelError, match="not found"):
        FMU(str(tmp_path / "missing.fmu"))
    block = FMU(fmus["BouncingBall"], outputs=["h"], kind="co-simulation", step=0.01)
    with pytest.raises(fm.ModelError, match="no output 'v'"):
        block.output("v")
