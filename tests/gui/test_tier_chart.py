"""Issue 42: the cache-tier chart counted an override, a loaded file, the in-process memo and codegen as
"error": an error bar with no error row in the tree."""
from types import SimpleNamespace

import pytest

from qdexplorer.session import Session

pytestmark = pytest.mark.gui


def test_only_failed_tasks_count_as_errors(qapp):
    from qdexplorer.gui.timing.tier_chart import TierChart
    session = Session()
    tiers = {"a": "memory", "b": "memo", "c": "disk", "d": "codegen", "e": "miss", "f": "override", "g": "load"}
    session.compiled = {("nvptx", t): SimpleNamespace(tier=tier, error="") for t, tier in tiers.items()}
    session.compiled[("nvptx", "h")] = SimpleNamespace(tier="error", error="ptxas: bad")
    chart = TierChart(session)
    chart.refresh()
    assert {t: chart.count("PTX", t) for t in ("memory", "disk", "miss", "override", "error")} == \
        {"memory": 2, "disk": 1, "miss": 2, "override": 2, "error": 1}
