"""Short summaries of Results (issue 44): the run's state, its engine, its signals and its warnings."""
from __future__ import annotations

import numpy as np

from flexmbs.results.results import Results


def test_results_summary_lists_its_warnings_one_line_each():
    res = Results(np.linspace(0.0, 1.0, 11), {"body/a/position": np.zeros((11, 3))}, {"body/a/position": "m"},
                  message="integration finished", statistics={"steps": 10, "engine": "compiled"},
                  attributes={"model": "m", "warnings": ["pressure 112 bar in P\n  above every relief setting"]})
    text = res.summary()
    assert text.splitlines()[0].startswith("Results of 'm': finished (integration finished), 11 samples")
    assert "compiled engine, 10 steps" in text
    assert text.splitlines()[-1] == "warning: pressure 112 bar in P above every relief setting"
    assert res._repr_html_().startswith("<pre>") and len(repr(res).splitlines()) == 1
