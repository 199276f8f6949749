"""Case fourbar-hydraulic (seed 002 §4): geometry, equilibrium, damping scenarios, energy balance, CLI."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import flexmbs  # noqa: F401  (a broken import must fail, not skip)

from cases.fourbar_hydraulic import DEFAULTS, NAME, parameters, run, simulate_case  # noqa: E402
from cases.fourbar_hydraulic import geometry  # noqa: E402
from cases.fourbar_hydraulic.equilibrium import equilibrium_pressures  # noqa: E402
from cases.fourbar_hydraulic.model import cylinder_areas, link_masses  # noqa: E402


def test_geometry_reproduces_the_initial_values_of_eq90():
    lengths = geometry.link_lengths(DEFAULTS["L3"])
    phi2 = math.radians(60.0)
    conf = geometry.configuration(phi2, lengths)
    assert conf["G2"] == pytest.approx([0.5, math.sqrt(3) / 2], abs=1e-12)  # y_G2 = 0.5, z_G2 = 0.866
    assert geometry.cylinder_length(phi2, lengths) == pytest.approx(math.sqrt(3), rel=1e-12)  # s(0) = sqrt(3)
    g2, oc = conf["G2"], conf["Oc"]
    assert math.degrees(math.atan2(g2[1] - oc[1], g2[0] - oc[0])) == pytest.approx(30.0, abs=1e-9)  # alpha(0)
    phi32, phi43 = geometry.relative_angles_deg(phi2, lengths)
    assert phi32 == pytest.approx(322.1, abs=0.05)
    assert phi43 == pytest.approx(266.4, abs=0.05)


def test_equilibrium_pressures_satisfy_the_virtual_work_balance():
    """flexmbs static equilibrium vs F ds/dphi2 = dV_gravity/dphi2 from the closed-form kinematics (1e-6)."""
    p = parameters()
    eq = equilibrium_pressures(p)
    lengths = geometry.link_lengths(p["L3"])
    force_vw = geometry.virtual_work_cylinder_force(eq["phi2"], lengths, link_masses(p, lengths))
    a2, a3 = cylinder_areas(p)
    assert eq["phi2"] == pytest.approx(math.radians(60.0), abs=1e-9)
    assert eq["cylinder_force"] == pytest.approx(force_vw, rel=1e-6)
    assert eq["p2"] * a2 - eq["p3"] * a3 == pytest.approx(force_vw, rel=1e-6)
    assert eq["p1"] == eq["p2"] and eq["p3"] == 3.5e6


@pytest.mark.parametrize("scale, expected", [(1.0, "overdamped"), (0.1, "oscillatory"), (0.01, "oscillatory")])
def test_return_to_equilibrium_matches_table3(scale, expected):
    """Seed 002 Table 3: real eigenvalues with F_c*, F_s*, sigma_2*; complex pairs with /10 and /100."""
    out = run({"friction_scale": scale})["outputs"]
    assert out["response"] == expected
    assert out["deflection_at_t2_deg"] > 0.0  # the torque pulse lifted the input link
    assert out["settling_time_s"] is not None  # back to equilibrium (within the band) before t_end
    if scale == 0.01:
        low = run({"friction_scale": 0.1})["outputs"]
        assert out["zero_crossings_after_t2"] > low["zero_crossings_after_t2"]  # less friction, more swings


def test_energy_balance_of_the_closed_circuit():
    """Torque work + hydraulic work (- throttle loss - compression energy) - friction = change of mechanical energy.

    Closed valve, so the only flow is through the throttle; from t = 0 to t2 (loading), 1 %.
    """
    res, eq, p = simulate_case({"friction_scale": 1.0}, t_end=1.5)
    t, energy = res.time, res.energy()

    def signal(name):
        return res[f"element/hydraulics/{name}"]

    work_torque = np.trapezoid(res["force/M2/load"], res["joint/O1/rotation"])
    hydraulic_work = -np.trapezoid(signal("throttle.power_loss"), t) - sum(
        np.trapezoid(signal(f"{v}.compression_power"), t) for v in ("V1", "V2", "V3"))
    friction = np.trapezoid(signal("cylinder.friction_power"), t)
    mechanical = (energy["kinetic"][-1] + energy["gravity"][-1]) - (energy["kinetic"][0] + energy["gravity"][0])
    assert mechanical > 0.5 * work_torque
    assert work_torque + hydraulic_work - friction == pytest.approx(mechanical, rel=0.01)


def test_unknown_parameter_is_a_clear_error():
    from fem.errors import ModelError

    with pytest.raises(ModelError, match="unknown parameter 'friction'"):
        parameters({"friction": 0.1})


def test_cli_json_gives_the_case_keys():
    """``flexmbs run fourbar-hydraulic --set friction_scale=0.1 --json`` prints one JSON object with the case keys."""
    cmd = [sys.executable, "-m", "flexmbs", "run", NAME, "--set", "friction_scale=0.1", "--t-end", "2.0", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    for key in ("case", "t_end", "steps", "wall_s", "max_constraint_violation", "outputs"):
        assert key in data
    assert data["case"] == NAME
    assert data["outputs"]["friction_scale"] == pytest.approx(0.1)
    assert data["outputs"]["equilibrium_pressures_MPa"]["p3"] == pytest.approx(3.5)
    assert data["outputs"]["settling_time_s"] > 0.0
