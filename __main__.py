"""`python -m wadgym ...`: the `wadgym` command (wadgym.cli), e.g. `python -m wadgym --version`."""

import sys

from wadgym.cli import main

sys.exit(main())
