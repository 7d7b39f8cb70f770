"""The core is pure NumPy: importing it must not load Streamlit or Plotly (at run time; what each layer's
source may import is tests/test_layering.py)."""

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

