"""Seed 002 §4.4-4.5 on the project's four-bar: the 6x6 minimal Jacobian against the closed-form cubic of
wave2-spec A.4 (computed here from the case parameters with closed-form kinematics, without flexmbs), the friction
scenarios of Table 3, the conventional counterpart (eq. 95-100) and linear vs nonlinear after the torque pulse."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import flexmbs as fm
from cases.fourbar_hydraulic import geometry, parameters
from cases.fourbar_hydraulic import linear as fourbar_linear
from cases.fourbar_hydraulic.model import cylinder_areas, link_masses


def closed_form(p: dict) -> dict:
    """The coefficients ν1..ν8 of wave2-spec A.4 and their ingredients from the case parameters (closed-form
    kinematics, central differences in phi2 of the analytic loop closure; no multibody code)."""
    lengths = geometry.link_lengths(p["L3"])
    masses = link_masses(p, lengths)
    phi, h = math.radians(p["phi2_deg"]), 1e-4
    confs = [geometry.configuration(phi + k * h, lengths) for k in (-1, 0, 1)]
    # J_eq = T0^T M T0: sum of m |dG/dphi2|^2 + (m L^2/12) (dtheta/dphi2)^2 over the three slender rods
    j_eq = 0.0
    for g, th, m, length in (("G2", "theta2", "m2", "L2"), ("G3", "theta3", "m3", "L3"), ("G4", "theta4", "m4", "L4")):
        dg = (confs[2][g] - confs[0][g]) / (2 * h)
        dth = (confs[2][th] - confs[0][th]) / (2 * h)
        j_eq += masses[m] * dg @ dg + masses[m] * lengths[length] ** 2 / 12.0 * dth**2
    pot = [geometry.potential_energy(phi + k * h, lengths, masses) for k in (-1, 0, 1)]
    vg2 = (pot[2] - 2 * pot[1] + pot[0]) / h**2
    s = [geometry.cylinder_length(phi + k * h, lengths) for k in (-1, 0, 1)]
    s1, s2 = (s[2] - s[0]) / (2 * h), (s[2] - 2 * s[1] + s[0]) / h**2
    f_h = geometry.virtual_work_cylinder_force(phi, lengths, masses)  # A2 p2 - A3 p3 at the equilibrium
    a2, a3 = cylinder_areas(p)
    sc = p["friction_scale"]
    fc, fs, sigma2, vs = sc * p["coulomb_force"], sc * p["static_force"], sc * p["viscous_coefficient"], \
        p["stribeck_velocity"]
    dfric = 4 * fc / vs + 16 * (fs - fc) / (9 * vs) + sigma2  # slope of eq. (8) at zero velocity
    l2 = s[1] - p["c1"] - p["c2"]
    l3 = p["chamber_length"] - l2
    vh = (p["hose_volume_1"], p["hose_volume_2"], p["hose_volume_3"])
    vol = (vh[0], vh[1] + a2 * l2, vh[2] + a3 * l3)  # eq. (72), (73)
    b_oil, b_h, b_c = p["oil_bulk_modulus"], p["hose_bulk_modulus"], p["cylinder_bulk_modulus"]
    be = (1 / (1 / b_oil + vh[0] / (vol[0] * b_h)),  # eq. (75)
          1 / (1 / b_oil + vh[1] / (vol[1] * b_h) + a2 * l2 / (vol[1] * b_c)),
          1 / (1 / b_oil + vh[2] / (vol[2] * b_h) + a3 * l3 / (vol[2] * b_c)))
    gamma_t = p["throttle_coefficient"] / math.sqrt(p["transition_pressure"])  # laminar branch of eq. (6)
    nu1 = (-vg2 + f_h * s2) / j_eq
    nu2 = -s1**2 * dfric / j_eq
    nu3, nu4 = a2 * s1 / j_eq, -a3 * s1 / j_eq
    nu5 = -be[0] * gamma_t / vol[0]
    nu6, nu7 = -be[1] * a2 * s1 / vol[1], be[1] * gamma_t / vol[1]
    nu8 = be[2] * a3 * s1 / vol[2]
    return {"nu": (nu1, nu2, nu3, nu4, nu5, nu6, nu7, nu8), "J_eq": j_eq, "s1": s1, "A2": a2, "A3": a3, "V": vol,
            "B_e": be}


def closed_form_eigenvalues(p: dict) -> np.ndarray:
    """The roots of P3(λ) of wave2-spec A.4."""
    nu1, nu2, nu3, nu4, nu5, nu6, nu7, nu8 = closed_form(p)["nu"]
    cubic = [1.0, -nu2 - nu5 + nu7, -nu1 + nu2 * nu5 - nu2 * nu7 - nu3 * nu6 - nu4 * nu8,
             nu1 * nu5 - nu1 * nu7 + nu3 * nu5 * nu6 + nu4 * nu5 * nu8 - nu4 * nu7 * nu8]
    return np.roots(cubic)


def _match(a, b):
    cost = np.abs(a[:, None] - b[None, :])
    rows, cols = linear_sum_assignment(cost)
    return a[rows], b[cols]


@pytest.fixture(scope="module")
def scenarios():
    out = {}
    for scale in (1.0, 0.1, 0.01):
        p = parameters({"friction_scale": scale})
        out[scale] = (p, fourbar_linear.linear_model(p, torque=False))
    return out


@pytest.mark.parametrize("scale", [1.0, 0.1, 0.01])
def test_minimal_jacobian_has_the_closed_form_spectrum(scenarios, scale):
    """6x6; exactly two zeros (|λ| < 1e-9 max|λ|); -1/τ; three roots of P3 within 1e-6 relative."""
    p, lin = scenarios[scale]
    lam = lin.eigenvalues()
    assert lin.A.shape == (6, 6)
    zero = np.abs(lam) < 1e-9 * np.abs(lam).max()
    assert zero.sum() == 2
    rest = lam[~zero]
    spool = rest[np.argmin(np.abs(rest + 1.0 / p["valve_time_constant"]))]
    assert spool == pytest.approx(-1.0 / p["valve_time_constant"], rel=1e-9)
    cubic = rest[np.abs(rest - spool) > 0]
    expected = closed_form_eigenvalues(p)
    got, ref = _match(cubic, expected)
    np.testing.assert_allclose(np.abs(got - ref) / np.abs(ref), 0.0, atol=1e-6)


def test_friction_scenarios_follow_table3(scenarios):
    """Nominal: three real negative roots; /10: a complex pair with Re < 0; /100: smaller |Re| than /10."""
    def cubic_roots(scale):
        p, lin = scenarios[scale]
        lam = lin.eigenvalues()
        keep = (np.abs(lam) > 1e-9 * np.abs(lam).max()) & (np.abs(lam + 1 / p["valve_time_constant"]) > 1e-6)
        return lam[keep]

    nominal, tenth, hundredth = cubic_roots(1.0), cubic_roots(0.1), cubic_roots(0.01)
    assert np.all(np.abs(nominal.imag) == 0) and np.all(nominal.real < 0)
    pair10 = tenth[tenth.imag > 0]
    pair100 = hundredth[hundredth.imag > 0]
    assert pair10.size == 1 and pair10[0].real < 0
    assert pair100.size == 1 and abs(pair100[0].real) < abs(pair10[0].real)
    assert fourbar_linear.classify(scenarios[1.0][1].eigenvalues()) == "overdamped"
    assert fourbar_linear.classify(scenarios[0.1][1].eigenvalues()) == "underdamped"


def test_sparsity_is_that_of_eq93(scenarios):
    """p1 row: only p1, p2 (+ spool through H_U); p3 row: only omega2 (+ spool); no phi2 in pressure rows;
    the spool row is -1/τ alone (seed 002 eq. (93))."""
    _, lin = scenarios[1.0]
    A = lin.A
    scale = np.abs(A).max()
    assert np.all(np.abs(A[2:5, 0]) < 1e-12 * scale)  # H_x V^{h,ai} = 0 at the equilibrium
    assert abs(A[2, 1]) < 1e-12 * scale and abs(A[2, 4]) < 1e-12 * scale
    assert np.all(np.abs(A[4, [0, 2, 3, 4]]) < 1e-12 * scale)
    assert np.all(np.abs(A[5, :5]) < 1e-12 * scale)
    assert np.all(np.abs(A[1, [2, 5]]) < 1e-12 * scale)  # p1 and the spool do not act on the mechanism


def test_conventional_counterpart_has_the_spurious_zeros_and_a_u_shaped_step_study(scenarios, capsys):
    """Eq. (95)-(100): 2 n + n_z = 46 states, 2 m = 40 spurious near-zero eigenvalues (+ the 2 physical zeros);
    the physical ones agree with the minimal ones at the best step; the error vs step is U-shaped."""
    _, lin = scenarios[1.0]
    lam = lin.eigenvalues()
    physical = lam[np.abs(lam) > 1e-9 * np.abs(lam).max()]
    steps = [1e-11, 1e-9, 1e-7, 1e-5, 1e-3, 1e-2]
    errors = []
    with capsys.disabled():
        print("\nconventional Jacobian (seed 002 eq. (100)): step, max relative error of the physical eigenvalues")
    for step in steps:
        J, _ = fm.conventional_jacobian(lin, step=step)
        ev = np.linalg.eigvals(J)
        got, ref = _match(physical, ev)
        err = float(np.max(np.abs(got - ref) / np.abs(got)))
        errors.append(err)
        near_zero = int(np.sum(np.abs(ev) < 1e-3 * np.abs(lam).max()))
        with capsys.disabled():
            print(f"  h = {step:7.0e}  error {err:9.2e}  near-zero eigenvalues {near_zero}")
        if step == 1e-7:
            n_c = lin.info["n_constraints"]
            assert J.shape == (2 * lin.info["n_coordinates"] + lin.info["n_states_elements"],) * 2
            assert near_zero == 2 * n_c + 2
            assert err < 1e-6
    best = int(np.argmin(errors))
    assert 0 < best < len(steps) - 1
    assert errors[0] > 10 * errors[best] and errors[-1] > 10 * errors[best]


def test_cli_json_has_eigenvalues_and_transfer_functions():
    cmd = [sys.executable, "-m", "flexmbs", "linearize", "fourbar-hydraulic", "--set", "friction_scale=0.1",
           "--input", "torque", "--output", "phi2", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    lam = np.array([complex(r["re"], r["im"]) for r in data["eigenvalues"]])
    assert lam.size == 6
    expected = closed_form_eigenvalues(parameters({"friction_scale": 0.1}))
    for root in expected:
        assert np.min(np.abs(lam - root)) < 1e-6 * abs(root)
    (tf,) = data["transfer_functions"]
    assert tf["input"] == "torque" and tf["output"] == "phi2"
    # static compliance phi2/M2 with the trapped oil: the DC gain is finite and positive (the torque lifts link 2)
    assert isinstance(tf["dc_gain"], float) and tf["dc_gain"] > 0
    poles = np.array([complex(*pz) for pz in tf["poles"]])
    for root in expected:
        assert np.min(np.abs(poles - root)) < 1e-6 * abs(root)
    bad = subprocess.run([sys.executable, "-m", "flexmbs", "linearize", "fourbar-hydraulic", "--input", "nope"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown input 'nope'")
    assert bad.stderr.count("\n") == 1


@pytest.mark.slow
def test_linear_model_follows_the_nonlinear_return_after_the_torque_pulse():
    """Seed 002 eq. (94): started at t2 from the nonlinear state, phi2 within 5 % of the excursion over 2 s
    (overdamped scenario, where the Taylor expansion of the friction law holds, Fig. 13)."""
    cmp = fourbar_linear.linear_vs_nonlinear({"friction_scale": 1.0}, window=2.0)
    assert cmp["excursion_rad"] > 1e-4
    assert cmp["relative_difference"] < 0.05


def test_valve_command_to_spool_is_the_first_order_lag_of_eq4():
    """U_ref -> U: 1/(τ s + 1) (seed 002 eq. (4)); the mechanical and pressure modes cancel as decoupling zeros."""
    from cases.fourbar_hydraulic import build_model

    p = parameters()
    model, *_ = build_model(p, with_torque=False)
    lin = fm.linearize(model, at=fourbar_linear.equilibrium_point(model), coordinates=["joint/O1/rotation"],
                       inputs=["element/hydraulics/valve.command"], outputs=["element/hydraulics/valve.spool"])
    tf = lin.zpk(0, 0)
    tau = p["valve_time_constant"]
    assert tf["poles"] == pytest.approx([-1.0 / tau], rel=1e-9)
    assert tf["zeros"].size == 0 and tf["cancelled"] == 5
    assert tf["dc_gain"] == pytest.approx(1.0, rel=1e-9)


def test_static_compliance_torque_to_phi2_is_the_oil_springs_against_gravity():
    """DC gain phi2/M2 = 1 / (k_oil - ν1 J_eq): the trapped oil columns (V1 + V2 behind the throttle in series with
    the piston side, V3 on the rod side) as springs through s', against the geometric stiffness (closed form, 1e-6)."""
    from cases.fourbar_hydraulic import build_model

    p = parameters()
    cf = closed_form(p)
    (v1, v2, v3), (b1, b2, b3) = cf["V"], cf["B_e"]
    k_oil = cf["s1"] ** 2 * (cf["A2"] ** 2 / (v1 / b1 + v2 / b2) + cf["A3"] ** 2 * b3 / v3)
    model, *_ = build_model(p)
    lin = fm.linearize(model, at=fourbar_linear.equilibrium_point(model), coordinates=["joint/O1/rotation"],
                       inputs=["force/M2"], outputs=["joint/O1/rotation"])
    assert lin.zpk(0, 0)["dc_gain"] == pytest.approx(1.0 / (k_oil - cf["nu"][0] * cf["J_eq"]), rel=1e-6)
