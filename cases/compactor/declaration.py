"""What the case ``compactor`` declares to the registry: its name, one-line description and default parameters
(re-exported by the package; the case's own modules import them from here, not from the package)."""
from __future__ import annotations

from cases._common import toml_defaults

NAME = "compactor"
DESCRIPTION = ("Vibratory asphalt compactor: 23-joint DH tree (seed 004), Newton-Euler contact-force estimator vs "
               "the simulated drum-asphalt forces; scenarios static, vibrating, driving")

DEFAULTS = toml_defaults(__file__, "compactor.toml")
