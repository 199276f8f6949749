"""Solver fallbacks are not silent: they become warnings, printed and stored in the results file."""
import warnings

import numpy as np

import flexmbs as fm
from flexmbs.engine.solver import SolverFallbackWarning
from flexmbs.model.rotations import rotation_about


def pendulum():
    model = fm.Model("pendulum", gravity=(0.0, -9.81, 0.0))
    rod = model.add_rigid_body("rod", mass=2.0, inertia=(1e-4, 1 / 6, 1 / 6), position=(0.5, 0.0, 0.0),
                               orientation=rotation_about("z", 0.0))
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                    model.add_marker(rod, "end", position=(-0.5, 0.0, 0.0)), name="pivot")
    return model


def test_multiplier_reactions_fallback_is_a_stored_warning(tmp_path, monkeypatch):
    """Let the acceleration-level reaction solve fail at every sample after the start (as at a singular instant):
    the samples then carry the integrator's multipliers, and the run says so. (The compiled samples count such
    samples in their buffer, ``bf[19]``: :func:`flexmbs.engine.loop.take_sample`; a compiled solve cannot
    be patched, so the count a failing solve leaves is set here before each buffer is handed over.)"""
    from flexmbs.engine.samples import Sampler

    original = Sampler.flush

    def failing(self, recorder, stats):
        times, fb = self.bf[0][:self.count], self.bf[19]
        late = times[times > 0.0]
        if late.size:
            if fb[0] == 0:
                fb[1] = late[0]
            fb[0] += late.size
        return original(self, recorder, stats)

    monkeypatch.setattr(Sampler, "flush", failing)
    path = str(tmp_path / "p.results.h5")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fm.simulate(pendulum(), 0.05, output=path)
    assert res.success
    assert len(res.warnings) == 1 and "integrator's multipliers" in res.warnings[0]
    assert f"of {res.time.size - 1} sample(s)" in res.warnings[0]  # every sample after t = 0, counted once
    assert [str(w.message) for w in caught if w.category is SolverFallbackWarning] == res.warnings
    assert fm.load_results(path).statistics["warnings"] == res.warnings[0]
    # the reactions are still those of the motion (the multipliers of the index-3 solution): weight-sized
    assert np.all(np.isfinite(res["joint/pivot/force"]))


def test_clean_run_has_no_warnings(tmp_path):
    path = str(tmp_path / "p.results.h5")
    res = fm.simulate(pendulum(), 0.05, output=path)
    assert res.warnings == [] and fm.load_results(path).statistics["warnings"] == ""
