"""`python -m wadgym.cli ...`: the `wadgym` command."""

import sys

from wadgym.cli import main

sys.exit(main())
