"""Bad models fail early, with a message that says what to change."""
import numpy as np
import pytest

import flexmbs as fm
from flexmbs.engine.redundancy import RedundantConstraintWarning
from mbs_helpers import beam_matrices, craig_bampton_flexbody


def test_marker_on_a_node_that_does_not_exist_is_rejected_with_its_id():
    K, M, positions = beam_matrices(0.5, 4)
    model = fm.Model("bad marker")
    beam = model.add_flexible_body("beam", craig_bampton_flexbody(K, M, positions, n_normal=2))
    with pytest.raises(fm.ModelError, match="no node with id 9999"):
        model.add_marker(beam, "nowhere", node=9999)
    with pytest.raises(fm.ModelError, match="no interface 'middle'.*end0, end1"):
        model.add_marker(beam, "middle", node="middle")


def _planar_four_bar():
    model = fm.Model("redundant", gravity=(0.0, -9.81, 0.0))
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
    return model


@pytest.mark.parametrize("engine", ["compiled"])
def test_redundant_planar_loop_in_3d_reports_the_dropped_equations_and_moves_as_the_planar_model(engine):
    # a planar four-bar with four revolute joints in 3D: Grübler count -2 against 1 degree of freedom, so three
    # equations are redundant (issue 27: they are dropped and reported, no longer refused)
    model = _planar_four_bar()
    with pytest.warns(RedundantConstraintWarning, match=r"joint 'J3' equation\(s\) 2, 3, 4 dropped.*'J0', 'J1', 'J2'"):
        spatial = fm.simulate(model, 0.5, rtol=1e-7, atol=1e-9, engine=engine)
    assert spatial.statistics["engine"].startswith(engine)
    assert spatial.attributes["redundant_joints"] == "J0,J1,J2,J3"  # their reaction split is a choice: flagged
    # reference: the same mechanism as a planar model (no redundant equation); positions to 1e-7 m
    model.planar = True
    # the same engine as the spatial run: the check is the reaction split, and at rtol 1e-7 both runs carry the
    # same ~5e-5 relative integration error in the reactions, which the other engine's Jacobian shifts by ~1e-6
    planar = fm.simulate(model, 0.5, rtol=1e-7, atol=1e-9, engine=engine)
    for body in ("crank", "coupler", "rocker"):
        assert spatial[f"body/{body}/position"][-1] == pytest.approx(planar[f"body/{body}/position"][-1], abs=1e-7)
    # the in-plane reactions of the minimum-norm split agree with the planar model's unique ones (1e-6 relative)
    for joint in ("J0", "J1", "J2", "J3"):
        f3, f2 = spatial[f"joint/{joint}/force"][-1], planar[f"joint/{joint}/force"][-1]
        assert f3[:2] == pytest.approx(f2[:2], rel=1e-6, abs=1e-6 * np.abs(f2).max())


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
