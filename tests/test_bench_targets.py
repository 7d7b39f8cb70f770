"""devtools/targets.py: a benchmark's figure against its target, PASS or MISS, right at the edges."""

import math

from devtools.targets import Target, growth, pct, table


def test_a_figure_at_its_limit_passes_and_one_just_over_misses():
    limit = 1.5
    assert Target("follow p95", limit, limit, "s").met
    assert not Target("follow p95", math.nextafter(limit, 2), limit, "s").met
    assert Target("answers counted", limit, limit, at_least=True).met
    assert not Target("answers counted", math.nextafter(limit, 0), limit, at_least=True).met


def test_a_figure_never_measured_is_a_miss_whichever_way_the_target_points():
    for at_least in (False, True):
        t = Target("peak RSS", pct([], 0.95), 690, "MB", at_least)
        assert not t.met and t.line().startswith("MISS")


def test_the_printed_line_and_row_say_the_verdict_the_figure_and_the_limit():
    t = Target("peak RSS", 700, 690, "MB")
    assert t.line().startswith("MISS") and "700 MB" in t.line() and "≤ 690 MB" in t.line()
    assert t.row().endswith("❌ |") and Target("x", 1, 2).row().endswith("✅ |")
    assert table([t])[2] == t.row() and len(table([t, t])) == 4


def test_the_nearest_rank_percentile_picks_a_sample_and_handles_a_single_one():
    samples = [float(v) for v in range(1, 101)]
    assert pct(samples, 0.95) in samples and pct(samples, 0.95) > pct(samples, 0.5)
    assert pct([samples[7]], 0.95) == samples[7] == pct([samples[7]], 0.0)
    assert pct(samples, 1.0) == max(samples) and pct(samples, 0.0) == min(samples)


def test_growth_is_a_fraction_of_the_first_and_undefined_from_nothing():
    first = 400.0
    assert growth(first, first) == 0
    assert math.isclose(growth(first, first * 1.05), 0.05)
    assert growth(first, first * 0.9) < 0
    assert math.isnan(growth(0.0, first))
