"""What the case ``clamp-locking`` declares to the registry: its name, one-line description and default parameters
(re-exported by the package; the case's own modules import them from here, not from the package)."""
from __future__ import annotations

from cases._common import toml_defaults

NAME = "clamp-locking"
DESCRIPTION = ("Quadloc clamp locking mechanism (seed 003 ch. 3): 4 clamp pistons, 3 flexible connecting bars, "
               "regenerative cylinder with cushions, 90 ms directional or ramped proportional valve "
               "(--set stroke_direction=lock|unlock flexible=true|false valve_response_time=0.09 ...)")


DEFAULTS = toml_defaults(__file__, "clamp_locking.toml")
CHOICES = {"stroke_direction": ("lock", "unlock"), "valve_type": ("directional", "proportional")}
