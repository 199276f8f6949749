"""Bad models fail early, with a message that says what to change."""
import numpy as np
import pytest

import flexmbs as fm
from mbs_helpers import beam_matrices, craig_bampton_flexbody


def test_marker_on_a_node_that_does_not_exist_is_rejected_with_its_id():
    K, M, positions = beam_matrices(0.5, 4)
    model = fm.Model("bad marker")
    beam = model.add_flexible_body("beam", craig_bampton_flexbody(K, M, positions, n_normal=2))
    with pytest.raises(fm.ModelError, match="no node with id 9999"):
        model.add_marker(beam, "nowhere", node=9999)
    with pytest.raises(fm.ModelError, match="no interface 'middle'.*end0, end1"):
        model.add_marker(beam, "middle", node="middle")


def test_redundant_planar_loop_in_3d_names_the_joints():
    # a planar four-bar with four revolute joints in 3D: Grübler count -2, two equations are redundant
    model = fm.Model("redundant")
    pts = [(0, 0, 0), (0, 0.2, 0), (0.45, 0.3, 0), (0.4, 0, 0)]
    bodies = [model.add_rigid_body(n, 1.0, (1e-3, 1e-3, 1e-3), position=np.mean([pts[k], pts[k + 1]], axis=0))
              for k, n in enumerate(["crank", "coupler", "rocker"])]
    ground = model.ground
    pairs = [(ground, bodies[0], pts[0]), (bodies[0], bodies[1], pts[1]), (bodies[1], bodies[2], pts[2]),
             (bodies[2], ground, pts[3])]
    for k, (a, b, p) in enumerate(pairs):
        ma = model.add_marker(a, position=np.subtract(p, a.initial_position) if a is not ground else p)
        mb = model.add_marker(b, position=np.subtract(p, b.initial_position) if b is not ground else p)
        model.add_joint("revolute", ma, mb, name=f"J{k}")
    with pytest.raises(fm.ModelError, match=r"redundant.*J0.*J1.*J2.*J3|redundant.*J\d.*J\d"):
        fm.simulate(model, 0.1)
    # the same mechanism in a planar model is fine
    model.planar = True
    assert fm.simulate(model, 0.01).success


def test_inconsistent_constraints_that_cannot_be_assembled_name_the_joint():
    model = fm.Model("inconsistent")
    body = model.add_rigid_body("b", 1.0, (0.1, 0.1, 0.1))
    model.add_joint("spherical", model.add_marker(model.ground, "g1", position=(0, 0, 0)),
                    model.add_marker(body, "b1", position=(0, 0, 0)), name="ball")
    model.add_joint("spherical", model.add_marker(model.ground, "g2", position=(1.0, 0, 0)),
                    model.add_marker(body, "b2", position=(0.5, 0, 0)), name="too-short")
    with pytest.raises(fm.ModelError, match="cannot assemble.*too-short|redundant"):
        fm.simulate(model, 0.1)


class BlowUp:
    """ż = z²: the solution 1/(1 - t) does not exist beyond t = 1."""

    name = "blow-up"
    state_names, state_units = ["z"], ["1"]
    measurements = []

    def initial_state(self):
        return np.ones(1)

    def rates(self, t, z, y, ydot):
        return z**2

    def forces(self, t, z, y, ydot):
        return np.zeros(0)


def test_diverging_integration_reports_time_and_equation():
    model = fm.Model("blow-up")
    model.add_rigid_body("idle", 1.0, (1, 1, 1))
    model.add_element(BlowUp())
    res = fm.simulate(model, 2.0)
    assert not res.success
    assert res.status == "failed"
    t_fail = float(res.message.split("t = ")[1].split(" ")[0].rstrip(":"))
    assert 0.9 < t_fail <= 1.0
    assert "state 'z' of element 'blow-up'" in res.message
    assert res.time[-1] < 1.0  # what was computed before the failure is kept
    early = res.time < 0.9  # up to z = 10 the kept history is the exact 1/(1 - t) (errors grow like z here)
    np.testing.assert_allclose(res["element/blow-up/z"][early], 1.0 / (1.0 - res.time[early]), rtol=2e-2)
