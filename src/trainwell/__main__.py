"""``python -m trainwell`` is the ``trainwell`` command."""

from trainwell.cli.app import main

raise SystemExit(main())
