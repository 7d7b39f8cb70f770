"""ui.tables.fixed_table: a table that never changes, made once per process and kept as Arrow."""

import pandas as pd
import pyarrow as pa

from ui.lessons import queries_keys_values
from ui.tables import fixed_table


def test_a_fixed_table_is_made_once_and_holds_exactly_the_frame():
    calls = []
    frame = pd.DataFrame({"q · thing": [0.0, 2.0], "k · thing": [3.0, 0.0]}, index=["robot", "it"])

    def make() -> pd.DataFrame:
        calls.append(1)
        return frame

    first = fixed_table("test_fixed_table_once", make)
    again = fixed_table("test_fixed_table_once", make)
    assert first is again and len(calls) == 1
    assert isinstance(first, pa.Table)
    pd.testing.assert_frame_equal(first.to_pandas(), frame)          # index and values survive the trip


def test_the_video_library_is_shared_read_only():
    library = queries_keys_values.video_library()
    assert library is queries_keys_values.video_library()
    assert not library.K.flags.writeable and not library.V.flags.writeable
    shown = library.shown.to_pandas()
    assert list(shown.index) == library.titles and shown.shape[0] == library.K.shape[0]


def test_a_presented_table_prints_numbers_as_the_grid_does():
    from ui.tables import _short

    # -1e-7: four decimals would print 0, a number the table does not hold.
    values = (0.9, 0.0, -1e-7, 0.274069, 2.0, -1.25)
    assert [_short(v) for v in values] == ["0.9", "0", "-1 × 10⁻⁷", "0.2741", "2", "-1.25"]
