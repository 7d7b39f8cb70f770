"""The app runs from what the container holds: nothing under docs/ (nor tests/, scripts/, devtools/) is read
at run time. .dockerignore leaves those out, so a copy of the repository without them stands in for the
image, run in a fresh interpreter so that none of this checkout's modules (or files) are used instead.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from devtools.apptest import open_page
from ui.inputs import label_markdown

ROOT = Path(__file__).resolve().parent.parent
TAMPERED = "<script>alert(1)</script>"

# Run inside the copy: open the app, then a page with a link whose value for one control cannot be used.
OPEN_TAMPERED = """
import json, sys
from streamlit.testing.v1 import AppTest
import ui.content
at = AppTest.from_file("app.py", default_timeout=60)
at.run()
at.query_params[sys.argv[2]] = sys.argv[3]
at.switch_page(f"pages/{sys.argv[1]}.py").run()
print(json.dumps({"content": ui.content.__file__, "exceptions": [str(e.value) for e in at.exception],
                  "warnings": [w.value for w in at.warning]}))
"""


def image_copy(dest: Path) -> Path:
    """The repository's top-level entries that .dockerignore lets into the image, copied to ``dest``."""
    ignored = [line.strip().rstrip("/") for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#")]
    for entry in ROOT.iterdir():
        if any(fnmatch.fnmatch(entry.name, pattern) for pattern in ignored):
            continue
        if entry.is_dir():
            shutil.copytree(entry, dest / entry.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(entry, dest / entry.name)
    return dest


def test_the_image_leaves_out_docs_and_the_developer_tools():
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {"docs", "tests", "scripts", "devtools"} <= set(ignored)


def test_a_tampered_link_names_the_control_by_its_label_without_docs(tmp_path):
    slug, key = "sqrt_dk", "sd_dk"
    label = open_page(slug).slider(key=key).label                 # what the learner reads on the control
    app = image_copy(tmp_path)
    assert (app / "app.py").is_file() and not (app / "docs").exists()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", OPEN_TAMPERED, slug, key, TAMPERED], cwd=app, env=env,
                         capture_output=True, text=True, timeout=300, check=True)
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(seen["content"]).resolve().is_relative_to(app.resolve()), "the copy's own code ran"
    assert not seen["exceptions"]
    notice = next(w for w in seen["warnings"] if "could not use" in w)
    assert f"“{label_markdown(label)}”" in notice
    assert key not in notice.replace("\\", "")
