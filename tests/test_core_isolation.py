"""The core is pure NumPy: importing it must not load Streamlit or Plotly."""

import subprocess
import sys


def test_importing_core_loads_neither_streamlit_nor_plotly():
    code = (
        "import sys, attention_core; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'streamlit', 'plotly', 'pandas'}); "
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "", f"attention_core pulled in: {result.stdout.strip()}"


def test_core_source_imports_no_ui_library():
    from pathlib import Path

    import attention_core

    for path in Path(attention_core.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for lib in ("streamlit", "plotly"):
            assert f"import {lib}" not in text and f"from {lib}" not in text, f"{path.name} imports {lib}"


def test_figures_do_not_import_streamlit():
    from pathlib import Path

    for path in (Path(__file__).resolve().parent.parent / "figures").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import streamlit" not in text and "st.session_state" not in text, path.name
