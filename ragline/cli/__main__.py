"""``python -m ragline.cli``: the ``ragline`` command."""

import sys

from ragline.cli import main

sys.exit(main())
