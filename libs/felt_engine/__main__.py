"""``python -m felt_engine replay FILE.phh``: see :mod:`felt_engine.cli`."""

import sys

from felt_engine.cli import main

sys.exit(main())
