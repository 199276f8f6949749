"""What the case ``fourbar-hydraulic`` declares to the registry: its name, one-line description, default parameters
with provenance, and :func:`parameters` (re-exported by the package; the case's own modules import them from here)."""
from __future__ import annotations

from cases._common import case_parameters

NAME = "fourbar-hydraulic"
DESCRIPTION = ("Hydraulically actuated four-bar (seed 002 §4): throttle, directional valve, three control volumes, "
               "Brown-McPhee friction; torque pulse and return to equilibrium (--set friction_scale=1|0.1|0.01)")

DEFAULTS = {
    # scenario (seed 002 Table 3): F_c = s F_c*, F_s = s F_s*, sigma_2 = s sigma_2*
    "friction_scale": 1.0,
    "coulomb_force": 210.0,           # N, F_c*
    "static_force": 830.0,            # N, F_s*
    "viscous_coefficient": 330.0,     # N s/m, sigma_2*
    "stribeck_velocity": 0.01,        # m/s, v_s (our choice; not in the seed)
    # mechanism (lengths from eq. (90), see geometry.py; masses our choice)
    "L3": 2.25,                       # m, coupler length (chosen); L1, L4 follow from eq. (90)
    "mass_per_length": 20.0,          # kg/m, slender steel rods (about a 50 x 50 mm bar)
    "phi2_deg": 60.0,                 # deg, equilibrium input angle, eq. (90)
    # cylinder (eq. (72), (73)); O_c-to-base c1, piston length c2, chamber length l
    "bore_diameter": 0.05,            # m
    "rod_diameter": 0.022,            # m
    "c1": 0.3, "c2": 0.1,             # m
    "chamber_length": 2.0,            # m
    # fluid and circuit (Table 2 of the paper is not in the seed: our values)
    "oil_density": 835.2, "oil_bulk_modulus": 1.49e9, "oil_viscosity": 46e-6,  # HLP46, seed 003
    "hose_bulk_modulus": 7.0e8,       # Pa, B_h
    "cylinder_bulk_modulus": 2.0e10,  # Pa, B_c
    "hose_volume_1": 5e-4, "hose_volume_2": 5e-4, "hose_volume_3": 5e-4,  # m^3, V_h1..V_h3
    "transition_pressure": 2e5,       # Pa, dp_lim of eq. (6)
    "throttle_coefficient": 2.94e-8,  # m^3/(s Pa^0.5), C_vt (C_d 0.6, 1 mm^2)
    "valve_coefficient": 1.0e-7,      # m^3/(s Pa^0.5), C_vd
    "valve_time_constant": 0.05,      # s, tau of eq. (4)
    "spool_reference": 0.0,           # U_ref (neutral, seed 002 §4.4)
    "pump_pressure": 10e6,            # Pa
    "p3_equilibrium": 3.5e6,          # Pa, eq. (91)
    # torque pulse, eq. (92)
    "torque_M0": 250.0, "torque_t1": 1.0, "torque_t2": 1.5,
    "t_end": 3.0,                     # s
    "settling_band": 0.05,            # settled when |phi2 - phi2_0| stays below this fraction of its value at t2
}

# declared metadata of the physically important parameters (checked by `flexmbs run` before any work, see
# cases.validate_parameters)
PARAMETERS = {
    "friction_scale": {"unit": "1", "min": 0, "max": 100, "description": "factor on the nominal friction"},
    "coulomb_force": {"unit": "N", "min": 0, "description": "Coulomb friction F_c*"},
    "static_force": {"unit": "N", "min": 0, "description": "static friction F_s*"},
    "viscous_coefficient": {"unit": "N s/m", "min": 0, "description": "viscous friction sigma_2*"},
    "stribeck_velocity": {"unit": "m/s", "gt": 0, "description": "Stribeck velocity v_s"},
    "L3": {"unit": "m", "gt": 0.5, "max": 10.0, "description": "coupler length (L1, L4 follow from eq. (90))"},
    "mass_per_length": {"unit": "kg/m", "gt": 0, "description": "mass per length of the rods"},
    "phi2_deg": {"unit": "deg", "gt": 0, "lt": 180, "description": "equilibrium input angle"},
    "bore_diameter": {"unit": "m", "gt": 0, "max": 1.0, "description": "cylinder bore"},
    "rod_diameter": {"unit": "m", "gt": 0, "max": 1.0, "description": "cylinder rod (smaller than the bore)"},
    "chamber_length": {"unit": "m", "gt": 0, "max": 20.0, "description": "cylinder chamber length"},
    "oil_density": {"unit": "kg/m^3", "min": 500, "max": 1500, "description": "oil density"},
    "oil_bulk_modulus": {"unit": "Pa", "min": 1e7, "max": 1e10, "description": "oil bulk modulus"},
    "oil_viscosity": {"unit": "m^2/s", "gt": 0, "description": "kinematic viscosity"},
    "hose_bulk_modulus": {"unit": "Pa", "min": 1e7, "max": 1e12, "description": "hose bulk modulus B_h"},
    "cylinder_bulk_modulus": {"unit": "Pa", "min": 1e7, "max": 1e12, "description": "cylinder bulk modulus B_c"},
    **{f"hose_volume_{k}": {"unit": "m^3", "gt": 0, "max": 1.0, "description": f"hose volume V_h{k}"}
       for k in (1, 2, 3)},
    "transition_pressure": {"unit": "Pa", "gt": 0, "max": 1e7, "description": "laminar-turbulent dp_lim"},
    "throttle_coefficient": {"unit": "m^3/(s Pa^0.5)", "gt": 0, "description": "throttle flow coefficient"},
    "valve_coefficient": {"unit": "m^3/(s Pa^0.5)", "gt": 0, "description": "valve flow coefficient"},
    "valve_time_constant": {"unit": "s", "gt": 0, "description": "spool time constant"},
    "spool_reference": {"unit": "1", "min": -1, "max": 1, "description": "spool command U_ref"},
    "pump_pressure": {"unit": "Pa", "gt": 0, "max": 1e8, "description": "pump pressure (1000 bar at most)"},
    "p3_equilibrium": {"unit": "Pa", "gt": 0, "max": 1e8, "description": "equilibrium pressure p3, eq. (91)"},
    "torque_t1": {"unit": "s", "min": 0, "description": "torque pulse start"},
    "torque_t2": {"unit": "s", "gt": 0, "description": "torque pulse end"},
    "t_end": {"unit": "s", "gt": 0, "description": "end time"},
    "settling_band": {"unit": "1", "gt": 0, "lt": 1, "description": "settling band"},
}

# provenance of every parameter (issue 16): seed (where), derived (formula), assumed (why), calibrated (target)
_PROVENANCE = {
    "friction_scale": {"provenance": "seed", "source": "seed 002 Table 3: scenarios 1, 1/10, 1/100"},
    "coulomb_force": {"provenance": "seed", "source": "seed 002 §4.5: F_c*"},
    "static_force": {"provenance": "seed", "source": "seed 002 §4.5: F_s*"},
    "viscous_coefficient": {"provenance": "seed", "source": "seed 002 §4.5: sigma_2*"},
    "stribeck_velocity": {"provenance": "assumed", "source": "v_s not in the seed"},
    "L3": {"provenance": "assumed", "source": "coupler length chosen; L1, L4 follow from eq. (90)"},
    "mass_per_length": {"provenance": "assumed", "source": "link masses not in the seed (slender steel rods)"},
    "phi2_deg": {"provenance": "seed", "source": "seed 002 eq. (90): phi2 = 60 deg"},
    "bore_diameter": {"provenance": "assumed", "source": "Table 2 of the paper not in the seed"},
    "rod_diameter": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "c1": {"provenance": "assumed", "source": "Table 2 not in the seed", "unit": "m"},
    "c2": {"provenance": "assumed", "source": "Table 2 not in the seed", "unit": "m"},
    "chamber_length": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "oil_density": {"provenance": "seed", "source": "HLP46, seed 003 L5644"},
    "oil_bulk_modulus": {"provenance": "seed", "source": "HLP46, seed 003 L5644"},
    "oil_viscosity": {"provenance": "seed", "source": "HLP46, seed 003 L5642"},
    "hose_bulk_modulus": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "cylinder_bulk_modulus": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "hose_volume_1": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "hose_volume_2": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "hose_volume_3": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "transition_pressure": {"provenance": "assumed", "source": "dp_lim of eq. (6) without value"},
    "throttle_coefficient": {"provenance": "derived", "source": "C_d 0.6 and 1 mm^2: C_d A sqrt(2/rho)"},
    "valve_coefficient": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "valve_time_constant": {"provenance": "assumed", "source": "tau of eq. (4) without value"},
    "spool_reference": {"provenance": "seed", "source": "seed 002 §4.4: neutral spool"},
    "pump_pressure": {"provenance": "assumed", "source": "Table 2 not in the seed"},
    "p3_equilibrium": {"provenance": "seed", "source": "seed 002 eq. (91): p3 = 3.5 MPa"},
    "torque_M0": {"provenance": "assumed", "source": "pulse amplitude of eq. (92) not printed", "unit": "N m"},
    "torque_t1": {"provenance": "assumed", "source": "eq. (92) times not printed"},
    "torque_t2": {"provenance": "assumed", "source": "eq. (92) times not printed"},
    "t_end": {"provenance": "assumed", "source": "run control: integrator/output setting, not physics"},
    "settling_band": {"provenance": "assumed", "source": "5 % band for the settling time"},
}
for _key, _spec in _PROVENANCE.items():
    PARAMETERS[_key] = {**_spec, **PARAMETERS.get(_key, {})}


parameters = case_parameters(NAME, DEFAULTS)
