"""SlidingContact (seed 003 eq. (5-1), Fig. 5-1): window, friction law, Jacobian, errors, and a slider on a simply
supported solid beam against the full FE static solution and the analytic moving-load solution (Frýba)."""
import numpy as np
import pytest

import flexmbs as fm
from flexmbs.model.sliding import friction_coefficients, window, window_derivative
from sliding_helpers import E, RHO, beam_fe, beam_model, critical_speed, fryba_midspan, settle

L, B, H = 3.0, 0.1, 0.1
D1, D3, D4, D2 = -0.3, -0.1, 0.2, 0.35


# --- the window of Fig. 5-1 -----------------------------------------------------------------------------------
def test_window_is_zero_outside_one_on_the_plateau_and_half_at_the_ramp_middles():
    outside = np.array([-1.0, D1, D2, 1.0, D1 - 1e-9, D2 + 1e-9])
    np.testing.assert_array_equal(window(outside, D1, D3, D4, D2), 0.0)  # exact: definition
    np.testing.assert_array_equal(window(np.linspace(D3, D4, 7), D1, D3, D4, D2), 1.0)
    # STEP is the cubic Δ²(3 - 2Δ): 1/2 at Δ = 1/2 (spec C.6), 5/32 at Δ = 1/4
    assert window(0.5 * (D1 + D3), D1, D3, D4, D2) == pytest.approx(0.5, abs=1e-15)
    assert window(0.5 * (D4 + D2), D1, D3, D4, D2) == pytest.approx(0.5, abs=1e-15)
    assert window(D1 + 0.25 * (D3 - D1), D1, D3, D4, D2) == pytest.approx(5.0 / 32.0, abs=1e-15)


def test_window_has_a_continuous_first_derivative_that_matches_central_differences():
    x = np.linspace(-0.5, 0.5, 20001)
    w, dw = window(x, D1, D3, D4, D2), window_derivative(x, D1, D3, D4, D2)
    h = 1e-7
    numeric = (window(x + h, D1, D3, D4, D2) - window(x - h, D1, D3, D4, D2)) / (2 * h)
    np.testing.assert_allclose(dw, numeric, atol=1e-5)  # central-difference truncation ~h² w''' ≈ 1e-12
    # C¹: no jump of w' across the four knots (one-sided differences agree to O(h))
    for knot in (D1, D3, D4, D2):
        left = (window(knot, D1, D3, D4, D2) - window(knot - h, D1, D3, D4, D2)) / h
        right = (window(knot + h, D1, D3, D4, D2) - window(knot, D1, D3, D4, D2)) / h
        assert abs(left - right) < 1e-4, knot
    assert np.max(np.abs(np.diff(w))) < 1e-3  # continuous: no step larger than slope × grid spacing


def test_summed_window_weights_are_constant_when_ramps_are_one_node_spacing():
    # s(u) + s(1 - u) = 1 for the cubic STEP: a slider glides across equally spaced nodes without ripple
    spacing = 0.05
    nodes = np.arange(-2.0, 2.0 + 1e-12, spacing)
    totals = [window(nodes - xs, -0.1 - spacing, -0.1, 0.1, 0.1 + spacing).sum()
              for xs in np.linspace(-0.5, 0.5, 101)]
    np.testing.assert_allclose(totals, 5.0, rtol=1e-12)  # (d4 - d3)/spacing + 1 nodes


def test_vectorized_friction_law_equals_the_fig_4_3_coefficient():
    v = np.linspace(-0.05, 0.05, 401)
    mu, dmu = friction_coefficients(v, 1.2, 0.09, 0.01, 0.02)
    expected = [fm.friction_coefficient(x, 1.2, 0.09, 0.01, 0.02) for x in v]
    np.testing.assert_allclose(mu, expected, atol=1e-14)  # the same law, vectorized
    h = 1e-8
    numeric = (friction_coefficients(v + h, 1.2, 0.09, 0.01, 0.02)[0]
               - friction_coefficients(v - h, 1.2, 0.09, 0.01, 0.02)[0]) / (2 * h)
    np.testing.assert_allclose(dmu[np.abs(v) > 1e-6], numeric[np.abs(v) > 1e-6], atol=1e-3)  # slopes ~ 100 s/m


# --- a slider on a simply supported solid beam -------------------------------------------------------------------
@pytest.fixture(scope="module")
def beam(mesh_dir):
    from reduction.reduce import reduce

    fe, full, inner = beam_fe(mesh_dir, L, B, H, 0.1)
    interior = reduce(fe, ["A", "B"], 16, name="beam", compare_modes=0, paths={"top": full})
    interface = reduce(fe, ["A", "B"], 16, name="beam", compare_modes=0, paths={"top": (inner, "3")})
    return fe, interior, interface


def _positions(res, body_name):
    state, system = res.final_state, res.system
    ctx = system.context(state.q, state.v, state.t)
    body = next(b for b in system.bodies if b.name == body_name)
    kin = ctx.kin[body.index]
    return kin.r + (body.node_positions + body.node_translations @ kin.qf) @ kin.A.T, ctx


def _full_fe_static(fe, nodes, loads):
    """Full FE static solution with the supports of the multibody model: A pinned, B pinned and its spin about x
    held (universal joint)."""
    from fem.linalg import SPDFactor

    f_full = np.zeros(fe.n_full_dofs)
    f_full[fe.node_dofs(nodes, "123").reshape(-1, 3)] += loads
    f = fe.transform.T @ f_full
    held = np.concatenate([fe.independent_index(fe.node_dofs(fe.references["A"].node, "123")),
                           fe.independent_index(fe.node_dofs(fe.references["B"].node, "1234"))])
    keep = np.setdiff1d(np.arange(fe.n_dofs), held)
    factor = SPDFactor(fe.stiffness[keep][:, keep].tocsr(), "beam")
    u = np.zeros(fe.n_dofs)
    u[keep] = factor.solve(f[keep])
    factor.release()
    return np.asarray(fe.expand(u))[fe.translation_dofs]  # (n_nodes, 3)


@pytest.mark.slow
@pytest.mark.parametrize("position", [0.6, 1.05, 1.5, 1.93, 2.4])
def test_static_slider_deflects_the_beam_like_the_full_fe_model_with_path_nodes_as_interfaces(beam, position):
    fe, interior, interface = beam
    load = 2.0e4
    errors = {}
    for label, body in (("interface", interface), ("interior", interior)):
        model, _, contact = beam_model(body, L, B, H, position, load=load, stiffness=1e9, shoe_length=0.2,
                                       damping_ratio=0.9, slider_mass=5.0)
        res = settle(model)
        x, ctx = _positions(res, "beam")
        forces = contact.node_forces(ctx)
        nodes = contact.nodes
        # equilibrium of the slider: the nodal forces carry the load (eq. (5-1) sums to it)
        assert forces["normal"].sum() == pytest.approx(load, rel=1e-3)
        u_fe = _full_fe_static(fe, nodes, -forces["normal"][:, None] * np.array([0.0, 0.0, 1.0]))
        u_mbs = x - body.positions  # the frame stays put: the joints hold the end reference nodes
        path_fe, path_mbs = u_fe[nodes, 2], u_mbs[nodes, 2]
        errors[label] = np.max(np.abs(path_mbs - path_fe)) / np.max(np.abs(path_fe))
    print(f"x = {position} m: path-node deflection error vs full FE, interface {100 * errors['interface']:.3f} %, "
          f"interior {100 * errors['interior']:.2f} %")
    assert errors["interface"] < 0.02  # acceptance: 2 % with path nodes as interface dofs (exact static modes)


@pytest.mark.slow
def test_slider_at_rest_transmits_its_weight_and_the_centroid_sits_under_it(beam):
    _, _, interface = beam
    mass = 500.0
    # the weight of a 500 kg slider as a load on a light shoe (a weightless beam: Σ F_p is the weight alone)
    model, _, contact = beam_model(interface, L, B, H, 1.5, slider_mass=0.5, load=mass * 9.81, stiffness=2e8,
                                   shoe_length=0.3, damping_ratio=0.9)
    res = settle(model)
    # statics: Σ F_p = m g once the damped transient has died out (1e-3: its remainder at 0.12 s)
    assert res["force/shoe/normal_force"][-1] == pytest.approx(mass * 9.81, rel=1e-3)
    # mid-span: no slope under the flat shoe, the load centre sits under it
    assert res["force/shoe/force_centroid"][-1] == pytest.approx(0.0, abs=2e-3)


@pytest.mark.slow
def test_slider_crossing_nodes_at_constant_speed_carries_its_weight_without_ripple(beam):
    _, interior, _ = beam
    weight = 200.0 * 9.81
    # the weight as a load on a light shoe and a damped (ζ = 0.9), weightless beam: what remains of the force
    # variation is the contact's own, from the nodes passing under the shoe (ramps of one node spacing)
    model, _, contact = beam_model(interior, L, B, H, 1.3, speed=0.5, load=weight, stiffness=2e8, damping=2e4,
                                   shoe_length=0.2, damping_ratio=0.9)
    res = fm.simulate(model, 0.4, rtol=1e-4, atol=1e-9, rho_inf=0.5)
    assert res.success, res.message
    settled = res.time > 0.1  # the start transient (beam sag under the load) has decayed
    total = res["force/shoe/normal_force"][settled]
    ripple = np.ptp(total) / weight
    print(f"normal force while crossing {0.15 / 0.05:.0f} node spacings: ripple {100 * ripple:.3f} %")
    assert ripple < 0.02  # acceptance: no ripple above 2 % of the weight


@pytest.mark.slow
@pytest.mark.parametrize("speed_ratio", [0.05, 0.5])
def test_moving_load_mid_span_deflection_follows_the_analytic_modal_series(beam, speed_ratio):
    _, interior, _ = beam
    ei, mu = E * B * H**3 / 12.0, RHO * B * H
    speed = speed_ratio * critical_speed(L, ei, mu)
    load = 1.0e4
    model, body, _ = beam_model(interior, L, B, H, 0.0, speed=speed, load=load, stiffness=2e8, damping=2e4)
    mid = int(np.argmin(np.linalg.norm(interior.positions - [L / 2, B / 2, H / 2], axis=1)))
    model.add_marker(body, "mid", node=int(interior.node_ids[mid]))
    res = fm.simulate(model, L / speed, rtol=1e-3, atol=1e-7, rho_inf=0.6)
    assert res.success, res.message
    deflection = H / 2 - res["marker/mid/position"][:, 2]
    reference = fryba_midspan(res.time, speed, L, load, ei, mu)
    error = np.max(np.abs(deflection - reference)) / np.max(reference)
    print(f"alpha = {speed_ratio}: peak {1e3 * reference.max():.3f} mm analytic, {1e3 * deflection.max():.3f} mm "
          f"flexmbs, max error {100 * error:.2f} % of the peak")
    assert error < 0.03  # acceptance: 3 % of the peak (Euler–Bernoulli vs solid beam: shear ≈ 0.3 % at L/h = 30)


# --- bad input --------------------------------------------------------------------------------------------------
def test_bad_sliding_input_gives_one_clear_line_each(beam):
    from reduction.reduce import reduce

    fe, interior, _ = beam
    with pytest.raises(fm.ModelError, match="at least 2 nodes") as info:
        reduce(fe, ["A", "B"], 2, compare_modes=0, paths={"one": "sphere:1.5,0.05,0.1,0.001"})
    assert "\n" not in str(info.value)
    model = fm.Model("bad")
    body = model.add_flexible_body("beam", interior)
    shoe = model.add_marker(model.ground, "shoe")
    with pytest.raises(fm.ModelError, match="d1 < d3") as info:
        fm.SlidingContact(shoe, body, "top", stiffness=1e9, window=(0.1, 0.1, 0.2, 0.3))
    assert "\n" not in str(info.value)
    with pytest.raises(fm.ModelError, match="longer than path") as info:
        fm.SlidingContact(shoe, body, "top", stiffness=1e9, shoe_length=3.5)
    assert "\n" not in str(info.value)
    with pytest.raises(fm.ModelError, match="at least 2 nodes"):
        fm.SlidingContact(shoe, body, [5], stiffness=1e9, shoe_length=0.1)
    with pytest.raises(fm.ModelError, match="no path 'rail'"):
        fm.SlidingContact(shoe, body, "rail", stiffness=1e9, shoe_length=0.1)


def test_compiled_kernel_equals_the_contact_s_methods_at_random_states(beam):
    """flexmbs.engine.contact_kernels against SlidingContact.generalized_forces and outputs (the reference):
    penalty, damping and friction on a flexible path, node outputs, a slider on a rigid body."""
    from flexmbs.engine.force_specs import check_force_kernel
    from flexmbs.engine.system import System

    _, interior, _ = beam
    model, _, _ = beam_model(interior, L, B, H, 1.23, speed=0.5, load=1e4, static=0.3, dynamic=0.2, exponent=1.2,
                             shoe_length=0.1)
    old = model.forces[-1]
    contact = fm.SlidingContact(old.slider, old.body, "top", stiffness=1e9, exponent=1.2, damping=3e4,
                                damping_depth=2e-5, shoe_length=0.1, static=0.3, dynamic=0.2,
                                stiction_velocity=0.01, node_outputs=True, name="shoe")
    model.forces[-1] = contact
    system = System(model)
    q0, v0, _ = system.initial_state()
    rng = np.random.default_rng(3)
    touching = 0
    for _ in range(20):
        q = q0 + 1e-5 * rng.standard_normal(q0.size)
        v = v0 + 1e-2 * rng.standard_normal(v0.size)
        got = check_force_kernel(system, contact, q, v, 0.0)
        kernel, method = got["loads"]
        touching += bool(np.any(method))
        # the same formulas, other order of the modal sums: rounding only (1e-11 of the largest load)
        np.testing.assert_allclose(kernel, method, rtol=0, atol=1e-11 * max(np.abs(method).max(), 1.0))
        outputs, reference = got["outputs"]
        for key, value in reference.items():
            assert outputs[key] == pytest.approx(value, rel=1e-10, abs=1e-12), key
    assert touching >= 10
