"""A falling mass and its exact free fall: the model the safe-file tests write and read back; the files those tests
guard (a mesh, a body, a results file) and their one-line error check."""
from pathlib import Path

import numpy as np

import flexmbs as fm

G = 9.81


def falling_mass():
    model = fm.Model("free fall", gravity=(0.0, 0.0, -G))
    model.add_rigid_body("ball", mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    return model


def assert_free_fall(res):
    """Every kept sample is the exact free fall (independent reference: z = -g t² / 2)."""
    assert res.time.size >= 2
    np.testing.assert_allclose(res["body/ball/position"][:, 2], -0.5 * G * res.time**2, atol=1e-9)


BOX_A, BOX_B = "box:-0.001,-1,-1,0.001,1,1", "box:0.999,-1,-1,1.001,1,1"


def guarded_files(d: Path) -> dict:
    """A bar mesh, its 3-mode body and a finished free-fall results file in ``d`` (the files a test must not lose)."""
    from fem.mesh import load_mesh
    from fem.meshing import bar_mesh
    from fem.model import solid_model
    from reduction.io import write_flexbody
    from reduction.reduce import reduce

    mesh = bar_mesh(str(d / "bar.msh"), size=0.05, order=1)
    model = solid_model(load_mesh(mesh), "steel")
    model.add_reference_node("a", model.select(BOX_A), "rbe2")
    model.add_reference_node("b", model.select(BOX_B), "rbe2")
    flex = write_flexbody(reduce(model, ["a", "b"], 3, name="bar", compare_modes=0), str(d / "bar.flex.h5"))
    fm.simulate(falling_mass(), 0.2, output=str(d / "good.results.h5"))
    return {"d": d, "mesh": mesh, "flex": flex, "res": str(d / "good.results.h5")}


def one_error_line(result, code=2):
    """The one ``error: ...`` line of a CLI result (exit status ``code``, no traceback)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert result.exit_code == code, (result.exit_code, result.stderr, result.exception)
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    return errors[0]


def copy(src, dst) -> Path:
    Path(dst).write_bytes(Path(src).read_bytes())
    return Path(dst)


def refused(fn, *words):
    """``fn()`` raises a FlexmbsError of one line that contains every word of ``words``; returns its text."""
    import pytest

    from fem.errors import FlexmbsError

    with pytest.raises(FlexmbsError) as info:
        fn()
    text = str(info.value)
    assert "\n" not in text.strip() and all(w in text for w in words), text
    return text
