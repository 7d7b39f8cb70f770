"""Rewrite docs/INPUTS.md and assets/lessons/control_labels.toml from a walk of every page (devtools/inventory.py).

    python -m scripts.input_inventory            # rewrite both files
    python -m scripts.input_inventory --check    # exit 1 if either is out of date
    python -m scripts.input_inventory --print    # print the table only
"""

import sys

from devtools.inventory import main

if __name__ == "__main__":
    sys.exit(main())
