"""What the case ``fourbar-hydraulic`` declares to the registry: its name, one-line description, default parameters
with provenance, and :func:`parameters` (re-exported by the package; the case's own modules import them from here)."""
from __future__ import annotations

from cases._common import case_parameters, toml_defaults

NAME = "fourbar-hydraulic"
DESCRIPTION = ("Hydraulically actuated four-bar (seed 002 §4): throttle, directional valve, three control volumes, "
               "Brown-McPhee friction; torque pulse and return to equilibrium (--set friction_scale=1|0.1|0.01)")

# default parameters with units, limits (checked by `flexmbs run` before any work, see cases.validate_parameters)
# and the provenance of every one (issue 16)
DEFAULTS = toml_defaults(__file__, "fourbar_hydraulic.toml")
PARAMETERS = DEFAULTS.specs


parameters = case_parameters(NAME, DEFAULTS)
