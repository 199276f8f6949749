"""Room ``cli``: the ``flexmbs`` command — its front door (one line per error), input checks, and one module per
command family (reduce/info, cases/run, modes/animate/plot/stress, linearize, fatigue, study, validate, fmu).

May import: every room and every package below flexmbs; only ``flexmbs.__main__`` and the entry point import it.
"""
from . import fatigue, fmi, linearize, reduce, run, study, validate, viz
from .app import main

__all__ = ["main"]

for _command in (reduce.reduce_command, reduce.info_command, run.cases_command, run.run_command,
                 viz.modes_command, viz.animate_command, viz.plot_command, viz.stress_command, viz.report_command,
                 linearize.linearize_command, fatigue.fatigue_command, study.study_command,
                 study.study_plot_command, validate.validate_command, fmi.fmu_command):
    main.add_command(_command)
