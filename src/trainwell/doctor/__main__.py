"""``python -m trainwell.doctor``: ``trainwell doctor``."""

import sys

from trainwell.cli import main

sys.exit(main(["doctor", *sys.argv[1:]]))
