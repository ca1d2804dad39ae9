"""``python -m eagerflow.checkpoint FILE...``: list the variables in checkpoint files."""

import sys

from eagerflow.checkpoint import listing

if __name__ == "__main__":
    sys.exit(listing.main())
