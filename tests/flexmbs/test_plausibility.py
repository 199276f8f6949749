"""Plausibility guards (issue 17): absurd but computable results get a warning naming the cause, stored in the
results file. References are analytic: a prescribed elastic deflection, the speed of sound of solids, pressure
settings of real relief valves."""
from types import SimpleNamespace

import numpy as np
import pytest

import flexmbs as fm
from flexmbs.results.plausibility import Extremes, PlausibilityWarning, plausibility_warnings
from hydraulics.orifices import ReliefValve


def _system(bodies=(), components=()):
    return SimpleNamespace(bodies=list(bodies), elements=[SimpleNamespace(components=list(components))])


def _bar_body(frequency_hz=50.0):
    """A 1 m bar of 11 nodes along x with one 'bending' mode: y displacement sin(pi x) per unit coordinate."""
    x = np.linspace(0.0, 1.0, 11)
    positions = np.column_stack([x, np.zeros_like(x), np.zeros_like(x)])
    shape = np.zeros((11, 3, 1))
    shape[:, 1, 0] = np.sin(np.pi * x)
    return SimpleNamespace(name="bar", n_modes=1, node_positions=positions, node_translations=shape,
                           frequencies_hz=np.array([frequency_hz]))


def _extremes(rows):
    ext = Extremes()
    for t, row, units in rows:
        ext.update(t, row, units)
    return ext


def test_pressure_above_every_relief_setting_is_named():
    relief = ReliefValve("PRV", cracking_pressure=350e5, flow_gain=1e-9)
    units = {"element/circuit/p_A": "Pa"}
    ext = _extremes([(0.0, {"element/circuit/p_A": 100e5}, units), (0.5, {"element/circuit/p_A": 2e11}, units)])
    found = plausibility_warnings(_system(components=[relief]), ext, {}, {})
    assert len(found) == 1 and "element/circuit/p_A" in found[0] and "PRV" in found[0] and "t = 0.5" in found[0]
    # below the highest setting (+10 %): silent
    ext = _extremes([(0.0, {"element/circuit/p_A": 360e5}, units)])
    assert plausibility_warnings(_system(components=[relief]), ext, {}, {}) == []


def test_pressure_above_the_supply_parameter_names_it():
    units = {"element/c/p": "Pa"}
    ext = _extremes([(1.0, {"element/c/p": 6.4e9}, units)])
    found = plausibility_warnings(_system(), ext, {}, {"supply_pressure": 28e6})
    assert len(found) == 1 and "supply_pressure" in found[0]


def test_elastic_deformation_beyond_5_percent_of_the_size():
    """Deflection of the sine mode = q (its peak-to-peak y displacement is exactly q for 0 <= sin <= 1)."""
    body = _bar_body()
    for q, warned in ((0.04, False), (0.06, True), (0.74, True)):
        ext = _extremes([(0.2, {"body/bar/modal_coordinates": np.array([q])}, {})])
        found = plausibility_warnings(_system([body]), ext, {}, {})
        assert bool(found) is warned
        if warned:
            assert f"{q:.3g} m" in found[0] and "'bar'" in found[0]


@pytest.mark.parametrize("frequency,warned", [(50.0, False), (5e4, True), (0.01, True)])
def test_frequencies_no_solid_of_that_size_can_have(frequency, warned):
    """A 1 m solid: lowest elastic mode below c/L = 20 km/s / 1 m (diamond) and above 0.1 Hz."""
    found = plausibility_warnings(_system([_bar_body(frequency)]), Extremes(), {}, {})
    assert bool(found) is warned and (not warned or "frequency" in found[0])


def test_collapsing_step_names_the_limiting_equation():
    stats = {"t_end": 1.0, "steps": 20_000_000, "wall_time_s": 10.0}
    found = plausibility_warnings(_system(), Extremes(), stats, {}, {"pressure p_A of circuit": 900, "q1": 3})
    assert len(found) == 1 and "collapsed" in found[0] and "p_A" in found[0]
    slow = {"t_end": 0.01, "steps": 100, "wall_time_s": 100.0}
    found = plausibility_warnings(_system(), Extremes(), slow, {}, {"q1 of body": 4})
    assert len(found) == 1 and "slower than real time" in found[0] and "q1 of body" in found[0]
    # a first run that spent 95 of its 100 s compiling its kernels is not slow (issue 44: it used to be said)
    compiled = {**slow, "compile_time_s": 95.0}
    assert plausibility_warnings(_system(), Extremes(), compiled, {}, {"q1 of body": 4}) == []


def test_warnings_are_issued_and_stored_in_the_results_file(tmp_path, monkeypatch):
    import flexmbs.results.plausibility as guards

    monkeypatch.setattr(guards, "plausibility_warnings", lambda *a, **k: ["a planted warning"])
    model = fm.Model("fall", gravity=(0, 0, -9.81))
    model.add_rigid_body("ball", 1.0, (1e-3, 1e-3, 1e-3))
    with pytest.warns(PlausibilityWarning, match="planted"):
        res = fm.simulate(model, 0.1, output=str(tmp_path / "w.results.h5"))
    assert res.attributes["warnings"] == ["a planted warning"]
    assert fm.load_results(str(tmp_path / "w.results.h5")).attributes["warnings"] == ["a planted warning"]


def test_a_plain_run_has_no_warnings(tmp_path):
    model = fm.Model("fall", gravity=(0, 0, -9.81))
    model.add_rigid_body("ball", 1.0, (1e-3, 1e-3, 1e-3))
    fm.simulate(model, 0.1, output=str(tmp_path / "w.results.h5"))
    assert fm.load_results(str(tmp_path / "w.results.h5")).attributes["warnings"] == []


@pytest.mark.slow
def test_soft_link_of_the_slider_crank_is_flagged():
    """E = 1e8 Pa (a polymer) on the steel slider crank's link: the seed's drive bends it ~4 cm, 8 % of 0.5 m."""
    import cases.slider_crank as case

    params = dict(case.DEFAULTS, link_youngs_modulus=1e8)
    with pytest.warns(PlausibilityWarning, match="elastic deformation of body 'link'"):
        case.run(params, 0.005, None, False)
