"""``python -m trainwell`` is the ``trainwell`` command."""

from trainwell.cli import main

raise SystemExit(main())
