"""``python -m trainwell.doctor``."""

import sys

from .cli import main

sys.exit(main())
