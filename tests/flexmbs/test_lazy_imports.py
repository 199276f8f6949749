"""``import flexmbs`` and the commands that do not simulate load neither numba nor the engine (PEP 562 facade):
about 0.9 s of every ``flexmbs reduce`` and ``--help`` (issue 31); the public names still resolve."""
import subprocess
import sys

import pytest

PROBE = """
import sys
{statement}
heavy = sorted(m for m in ("numba", "flexmbs.engine.solver", "flexmbs.model.kernels", "pyvista") if m in sys.modules)
print(",".join(heavy))
"""


@pytest.mark.parametrize("statement", ["import flexmbs", "import flexmbs.cli.reduce", "import flexmbs.cli.app"])
def test_no_engine_without_simulation(statement):
    done = subprocess.run([sys.executable, "-c", PROBE.format(statement=statement)], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == ""


def test_public_names_resolve():
    import flexmbs

    for name in flexmbs.__all__:
        assert getattr(flexmbs, name) is not None
    assert flexmbs.simulate.__module__ == "flexmbs.engine.solver"
    assert "Model" in dir(flexmbs)
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        flexmbs.nonexistent  # noqa: B018
