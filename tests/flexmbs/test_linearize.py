"""flexmbs.linearize (seed 002 §3 minimal coordinates) against analytic and full-FE references, and its errors."""
import math

import numpy as np
import pytest
import scipy.linalg as sla

import flexmbs as fm
import hydraulics as h
from fem.errors import ModelError
from mbs_helpers import beam_matrices, craig_bampton_flexbody

AXIS_X = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # marker frame with z along global x


def oil_spring(mass=50.0, bore=0.05, rod=0.03, stroke=1.0, x=0.4, dead=(2e-4, 3e-4), bulk=1.6e9, p_a=8e6):
    """A mass on a prismatic joint held by a cylinder with two closed chambers (no gravity, no friction)."""
    a1 = 0.25 * math.pi * bore**2
    a2 = a1 - 0.25 * math.pi * rod**2
    model = fm.Model("oil spring")
    retracted = 0.2
    body = model.add_rigid_body("mass", mass=mass, inertia=(0.1, 0.1, 0.1), position=(retracted + x, 0.0, 0.0))
    base = model.add_marker(model.ground, "base", orientation=AXIS_X)
    rod_end = model.add_marker(body, "rod", orientation=AXIS_X)
    model.add_joint("prismatic", base, rod_end, name="slide")
    circuit = h.Circuit("hydraulics", h.Fluid("oil", 850.0, bulk, 46e-6))
    circuit.add(h.Volume("A", dead[0], initial_pressure=p_a))
    circuit.add(h.Volume("B", dead[1], initial_pressure=p_a * a1 / a2))  # force balance p_A A1 = p_B A2
    circuit.add(h.Cylinder("cylinder", a1, a2, stroke, measurement=fm.Distance(base, rod_end),
                           retracted_length=retracted), A="A", B="B")
    model.add_element(circuit)
    volumes = (dead[0] + a1 * x, dead[1] + a2 * (stroke - x))
    return model, a1, a2, volumes


def test_oil_spring_frequency_is_the_hydraulic_stiffness_over_the_mass():
    """sqrt((β A1²/V1 + β A2²/V2)/m): the oil columns as springs in parallel (0.5 %, the issue's tolerance)."""
    mass, bulk = 50.0, 1.6e9
    model, a1, a2, (v1, v2) = oil_spring(mass=mass, bulk=bulk)
    lin = fm.linearize(model, at="static", outputs=["joint/slide/translation", "element/hydraulics/A.pressure"])
    expected = math.sqrt((bulk * a1**2 / v1 + bulk * a2**2 / v2) / mass)
    lam = lin.eigenvalues()
    assert lin.A.shape == (4, 4)  # 1 coordinate + its rate + 2 pressures
    oscillating = lam[np.abs(lam.imag) > 0]
    assert oscillating.size == 2
    assert abs(oscillating[0].imag) == pytest.approx(expected, rel=5e-3)
    assert abs(abs(oscillating[0].imag) / expected - 1.0) < 1e-6  # what it achieves (central differences)
    assert np.sum(np.abs(lam) < 1e-9 * np.abs(lam).max()) == 2  # two trapped oil masses are conserved


def test_linearized_outputs_and_files_roundtrip(tmp_path):
    model, a1, a2, (v1, v2) = oil_spring()
    lin = fm.linearize(model, at="static", inputs=[], outputs={"x": "joint/slide/translation",
                                                              "pA": "element/hydraulics/A.pressure"})
    # output pA is the pressure state itself; x is the minimal coordinate (derivative of the joint coordinate)
    pa = lin.state_names.index("element/hydraulics/A.pressure")
    np.testing.assert_allclose(lin.C[1], np.eye(lin.n_states)[pa], atol=1e-9)
    assert abs(lin.C[0, 0]) == pytest.approx(1.0, rel=1e-8)
    # continuity: dpA/dt = -β A1/V1 dx/dt
    assert lin.A[pa, 1] / lin.C[0, 0] == pytest.approx(-1.6e9 * a1 / v1, rel=1e-6)
    for ext in ("npz", "mat", "h5"):
        lin.save(str(tmp_path / f"lin.{ext}"))
    data = np.load(tmp_path / "lin.npz")
    np.testing.assert_array_equal(data["A"], lin.A)
    assert list(data["output_names"]) == ["x", "pA"]


def pinned_bar_model(slider_mass=0.01, n_normal=8):
    """A 0.5 m steel bar, spherical joint to ground at one end, spherical joint to a slider on a prismatic joint
    along the bar axis at the other: simply supported in both planes, free to spin about its axis."""
    K, M, positions = beam_matrices(length=0.5, n_elements=12)
    flexbody = craig_bampton_flexbody(K, M, positions, n_normal=n_normal)
    model = fm.Model("pinned bar")
    bar = model.add_flexible_body("bar", flexbody)
    slider = model.add_rigid_body("slider", mass=slider_mass, inertia=(1e-6, 1e-6, 1e-6), position=(0.5, 0, 0))
    model.add_joint("spherical", model.add_marker(model.ground, "pin0"), model.add_marker(bar, "end0", node="end0"),
                    name="pin0")
    model.add_joint("spherical", model.add_marker(slider, "pin1"), model.add_marker(bar, "end1", node="end1"),
                    name="pin1")
    model.add_joint("prismatic", model.add_marker(model.ground, "guide", orientation=AXIS_X),
                    model.add_marker(slider, "shoe", orientation=AXIS_X), name="guide")
    return model, K, M


def test_flexible_bar_pinned_in_a_mechanism_has_the_full_fe_bending_frequencies():
    """Seed 003 Table 3-2 logic: the flexible MBS model = the constrained FE model (1 % on 3 bending pairs)."""
    slider_mass = 0.01
    model, K, M = pinned_bar_model(slider_mass)
    lin = fm.linearize(model, at="static")
    analysis = lin.eigen()
    lam = analysis.eigenvalues
    # full FE with the same pins: node 0 fixed in translation, last node fixed across the axis, slider mass on u
    n = K.shape[0] // 6
    fixed = [0, 1, 2, 6 * (n - 1) + 1, 6 * (n - 1) + 2]
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    m_full = M.copy()
    m_full[6 * (n - 1), 6 * (n - 1)] += slider_mass
    w2 = sla.eigh(K[np.ix_(free, free)], m_full[np.ix_(free, free)], eigvals_only=True)
    f_fe = np.sqrt(np.clip(w2, 0.0, None)) / (2 * np.pi)
    assert f_fe[0] < 1e-3 * f_fe[1]  # the FE model too spins freely about the bar axis
    bending_fe = f_fe[1:7]  # three pinned-pinned pairs (square section: y and z bending coincide)
    f_lin = np.sort(analysis.frequency_hz[lam.imag > 0])
    np.testing.assert_allclose(f_lin[:6], bending_fe, rtol=1e-2)
    assert np.sum(np.abs(lam) < 1e-9 * np.abs(lam).max()) == 2  # the mechanism's rigid mode: free spin (0, 0)
    first = int(np.argmin(np.where(lam.imag > 0, np.abs(lam), np.inf)))
    assert any("bar mode" in lbl for lbl, _ in analysis.participation[first][:2])


def test_pendulum_frequency_and_named_coordinate():
    """Compound pendulum: ω² = m g d / I_pivot (small oscillations), with the joint angle as minimal coordinate."""
    mass, length, g = 2.0, 0.8, 9.81
    model = fm.Model("pendulum", gravity=(0.0, -g, 0.0))
    link = model.add_rigid_body("link", mass=mass, inertia=(1e-4, mass * length**2 / 12, mass * length**2 / 12),
                                position=(0.0, -length / 2, 0.0),
                                orientation=np.array([[0, 1.0, 0], [-1.0, 0, 0], [0, 0, 1.0]]))
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                    model.add_marker(link, "top", position=(-length / 2, 0, 0)), name="pivot")
    model.add_force(fm.JointActuator(model.joint("pivot"), 0.0, name="torque"))
    lin = fm.linearize(model, at="static", coordinates=["joint/pivot/rotation"], inputs=["force/torque"],
                       outputs=["joint/pivot/rotation"])
    inertia = mass * length**2 / 3
    omega = math.sqrt(mass * g * length / 2 / inertia)
    assert lin.A.shape == (2, 2)
    assert np.abs(lin.eigenvalues().imag).max() == pytest.approx(omega, rel=1e-8)
    tf = lin.zpk("force/torque", "joint/pivot/rotation")
    assert tf["dc_gain"] == pytest.approx(1.0 / (mass * g * length / 2), rel=1e-6)  # static compliance 1/(m g d)


def test_moving_operating_point_keeps_the_pendulum_equation():
    """About a moving state (pendulum swinging through 30° at 1.5 rad/s) the Euler-parameter velocity terms of
    steps 2-3 (V̿, U, V: non-zero here) must cancel to the pendulum's θ̈̃ = -(m g d / I) cos θ₀ θ̃ (analytic, 1e-6)."""
    from flexmbs.engine.initial import assemble_positions, project_velocities
    from flexmbs.engine.system import System

    mass, d, i_c, g = 1.0, 0.5, 0.05, 9.81
    angle = -math.pi / 3  # link axis 60° below x, i.e. 30° from the hanging position
    rot = np.array([[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0], [0, 0, 1.0]])
    model = fm.Model("pendulum", gravity=(0.0, -g, 0.0))
    link = model.add_rigid_body("link", mass=mass, inertia=(1e-4, i_c, i_c), position=rot @ [d, 0, 0],
                                orientation=rot, angular_velocity=(0.0, 0.0, 1.5))
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                    model.add_marker(link, "top", position=(-d, 0, 0)), name="pivot")
    system = System(model)
    q0, v0, z0 = system.initial_state()
    q0 = assemble_positions(system, q0)
    v0 = project_velocities(system, q0, v0)
    assert np.any(v0[3:7])  # really moving: the Euler parameters change
    lin = fm.linearize(model, at=fm.OperatingPoint(0.0, q0, v0, z0), coordinates=["joint/pivot/rotation"],
                       outputs=["joint/pivot/rotation"])
    theta0 = math.radians(30.0)
    stiffness = mass * g * d / (i_c + mass * d**2)
    assert lin.A[1, 0] == pytest.approx(-stiffness * math.cos(theta0), rel=1e-6)
    assert abs(lin.A[1, 1]) < 1e-6 * stiffness  # no damping: the velocity terms cancel
    assert np.any(lin.velocity_transformation)  # V̿ T is not zero about a moving state
    assert lin.C[0, :2] == pytest.approx([1.0, 0.0], abs=1e-8)


# --------------------------------------------------------------------------------------------- one-line errors
def test_a_redundant_joint_is_dropped_and_named_and_the_linearization_is_unchanged():
    """A hinge and an extra ball joint at the same point (its 3 equations repeat the hinge's): issue 27 drops and
    names them; the pendulum's eigenvalues equal the hinge-alone model's to 1e-8 relative."""
    from flexmbs.engine.redundancy import RedundantConstraintWarning

    def pendulum(extra_ball):
        model = fm.Model("redundant", gravity=(0, -9.81, 0))
        link = model.add_rigid_body("link", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(0.5, -0.1, 0))
        model.add_joint("revolute", model.add_marker(model.ground, "a"),
                        model.add_marker(link, "a1", position=(-0.5, 0.1, 0)), name="hinge")
        model.add_force(fm.RotationalSpringDamper(model.markers[0], model.markers[1], damping=0.3, name="damper"))
        if extra_ball:
            model.add_joint("spherical", model.add_marker(model.ground, "b"),
                            model.add_marker(link, "b1", position=(-0.5, 0.1, 0)), name="extra_ball")
        return model

    with pytest.warns(RedundantConstraintWarning, match=r"joint 'extra_ball' equation\(s\) 0, 1, 2 dropped"):
        redundant = fm.linearize(pendulum(True), at="static").eigenvalues()
    by_hand = fm.linearize(pendulum(False), at="static").eigenvalues()
    assert np.max(np.abs(redundant - by_hand) / np.abs(by_hand)) < 1e-8


def test_static_requested_at_a_non_equilibrium_is_a_one_line_error():
    model, *_ = oil_spring()
    from flexmbs.engine.system import System

    system = System(model)
    q0, v0, z0 = system.initial_state()
    z0 = z0 * np.array([1.5, 1.0])  # chamber A over-pressurized: the piston accelerates
    with pytest.raises(ModelError, match="not an equilibrium") as info:
        fm.linearize(model, at=fm.OperatingPoint(0.0, q0, v0, z0, kind="static"))
    assert "\n" not in str(info.value)
    # a constant torque on a pendulum larger than gravity can hold: no static equilibrium at all
    model = fm.Model("overdriven", gravity=(0, -9.81, 0))
    link = model.add_rigid_body("link", mass=1.0, inertia=(1e-3, 0.1, 0.1), position=(0.5, 0, 0))
    joint = model.add_joint("revolute", model.add_marker(model.ground, "p"),
                            model.add_marker(link, "p1", position=(-0.5, 0, 0)), name="hinge")
    model.add_force(fm.JointActuator(joint, 100.0, name="motor"))
    with pytest.raises(ModelError, match="static") as info:
        fm.linearize(model, at="static")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["input", "output"])
def test_unknown_signal_names_are_one_line_errors_that_list_the_valid_ones(kind):
    model, *_ = oil_spring()
    kwargs = {"inputs": ["element/hydraulics/nope"]} if kind == "input" else {"outputs": ["joint/slide/angle"]}
    with pytest.raises(ModelError) as info:
        fm.linearize(model, at="static", **kwargs)
    text = str(info.value)
    assert "\n" not in text
    assert ("nope" in text) if kind == "input" else ("translation" in text)


def test_exported_mode_series_shows_the_full_fe_bending_shape(tmp_path):
    """The VTK series of the first bending mode of the pinned bar: the transverse node displacements (half the
    difference of the frames at phase 0 and π) lie in the span of the two full-FE pinned-pinned first modes (y and z
    bending share one frequency), residual < 2 %."""
    import meshio

    slider_mass = 0.01
    model, K, M = pinned_bar_model(slider_mass)
    lin = fm.linearize(model, at="static")
    lam = lin.eigen().eigenvalues
    first = int(np.argmin(np.where(lam.imag > 0, np.abs(lam), np.inf)))
    out = lin.write_mode_series(first, str(tmp_path / "mode.pvd"), amplitude=0.01, frames=4)
    assert len(out["files"]) == 5 and (tmp_path / "mode.results.h5").exists()
    bar = out["bodies"].index("bar")
    frames = [meshio.read(f) for f in (out["files"][0], out["files"][2])]
    nodes = [f.points[f.point_data["body"] == bar] for f in frames]
    shape = 0.5 * (nodes[0] - nodes[1])[:, 1:3].ravel()  # y, z of every node
    n = K.shape[0] // 6
    fixed = [0, 1, 2, 6 * (n - 1) + 1, 6 * (n - 1) + 2]
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    m_full = M.copy()
    m_full[6 * (n - 1), 6 * (n - 1)] += slider_mass
    _, vec = sla.eigh(K[np.ix_(free, free)], m_full[np.ix_(free, free)], subset_by_index=[1, 2])
    full = np.zeros((K.shape[0], 2))
    full[free] = vec
    span = full[np.sort(np.concatenate([np.arange(n) * 6 + 1, np.arange(n) * 6 + 2]))]
    assert np.abs(shape).max() == pytest.approx(0.01, rel=0.05)  # the requested amplitude (mid-span deflection)
    residual = shape - span @ np.linalg.lstsq(span, shape, rcond=None)[0]
    assert np.linalg.norm(residual) < 0.02 * np.linalg.norm(shape)


def swinging_pendulum():
    mass, d, i_c, g = 1.0, 0.5, 0.05, 9.81
    angle = -math.pi / 3
    rot = np.array([[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0], [0, 0, 1.0]])
    model = fm.Model("pendulum", gravity=(0.0, -g, 0.0))
    link = model.add_rigid_body("link", mass=mass, inertia=(1e-4, i_c, i_c), position=rot @ [d, 0, 0],
                                orientation=rot)
    joint = model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                            model.add_marker(link, "top", position=(-d, 0, 0)), name="pivot")
    model.add_force(fm.JointActuator(joint, 0.0, name="torque"))
    return model, mass * g * d / (i_c + mass * d**2)


@pytest.mark.parametrize("source", ["time", "memory", "file"])
def test_operating_points_from_a_run_keep_the_pendulum_equation(tmp_path, source):
    """At t = 0.2 s of a swing released from 30°: θ̈̃ = -(m g d / I) cos θ(t) θ̃, with the state taken by simulating
    (at=T), from the in-memory results or from a results file (rebuilt from its signals), 1e-5 (nested
    differences of the constraint curvature about a moving point)."""
    model, stiffness = swinging_pendulum()
    kwargs = {"coordinates": ["joint/pivot/rotation"], "outputs": ["joint/pivot/rotation"]}
    opts = {"max_step": 0.01}  # the check uses the (projected) operating point itself: accuracy does not matter
    if source == "time":
        lin = fm.linearize(model, at=0.2, simulate_options=opts, **kwargs)
    else:
        path = str(tmp_path / "swing.results.h5")
        res = fm.simulate(model, 0.3, output=path, **opts)
        at = (res, 0.2) if source == "memory" else f"{path}@0.2"
        lin = fm.linearize(model, at=at, **kwargs)
    theta = lin.output_values[0] + math.pi / 2  # joint angle measured from the x axis; 0 = hanging
    assert abs(theta) > 0.05  # it has swung (released from 30°, still moving)
    assert np.any(lin.operating_point.v)
    assert lin.A[1, 0] == pytest.approx(-stiffness * math.cos(theta), rel=1e-5)
    assert abs(lin.A[1, 1]) < 1e-5 * stiffness


def test_conversions_to_scipy_and_python_control_give_the_static_compliance():
    """Pendulum at rest: torque -> angle has the DC gain 1/(m g d) (static compliance) in every representation."""
    import control  # python-control: in the test extras (pyproject.toml)
    model, stiffness = swinging_pendulum()
    model.bodies[0].initial_orientation = np.array([[0, 1.0, 0], [-1.0, 0, 0], [0, 0, 1.0]])  # hanging
    model.bodies[0].initial_position = np.array([0.0, -0.5, 0.0])
    lin = fm.linearize(model, at="static", coordinates=["joint/pivot/rotation"], inputs={"M": "force/torque"},
                       outputs={"theta": "joint/pivot/rotation"})
    compliance = 1.0 / (1.0 * 9.81 * 0.5)
    tf = lin.transfer_function("M", "theta")
    assert tf.num[-1] / tf.den[-1] == pytest.approx(compliance, rel=1e-6)
    assert float(np.real(control.dcgain(lin.to_control()))) == pytest.approx(compliance, rel=1e-6)
    assert lin.zpk("M", "theta")["dc_gain"] == pytest.approx(compliance, rel=1e-6)
    assert lin.to_scipy().A.shape == (2, 2)


@pytest.mark.parametrize("mass", [2.0, 5e-3, 5e-5, 5e-7])
def test_static_linearization_accepts_its_own_equilibrium_whatever_the_mass(mass):
    """Issue 48: ``at='static'`` rejected the equilibrium its own solver found for light bodies (an absolute force
    stop against an absolute acceleration check). A pendulum held by a torque of half its gravity moment rests at
    sin θ = 1/2 whatever its mass (closed form); its frequency ω² = m g d cos θ / I_pivot (1e-8) for 2 kg down to
    0.5 mg."""
    length, g = 0.1, 9.81
    i_c = mass * length**2 / 12
    model = fm.Model("light", gravity=(0.0, -g, 0.0))
    link = model.add_rigid_body("link", mass=mass, inertia=(1e-3 * i_c, i_c, i_c), position=(0.0, -length / 2, 0.0),
                                orientation=np.array([[0, 1.0, 0], [-1.0, 0, 0], [0, 0, 1.0]]))
    joint = model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                            model.add_marker(link, "top", position=(-length / 2, 0, 0)), name="pivot")
    model.add_force(fm.JointActuator(joint, 0.5 * mass * g * length / 2, name="torque"))
    lin = fm.linearize(model, at="static", coordinates=["joint/pivot/rotation"], outputs=["joint/pivot/rotation"])
    theta = math.asin(0.5)
    assert lin.operating_point.q[:2] == pytest.approx([length / 2 * math.sin(theta), -length / 2 * math.cos(theta)],
                                                      rel=1e-8)
    omega = math.sqrt(mass * g * length / 2 * math.cos(theta) / (mass * length**2 / 3))
    assert np.abs(lin.eigenvalues().imag).max() == pytest.approx(omega, rel=1e-8)
