"""``python -m eagerflow.saving FILE...``: list the variables in checkpoint files."""

import sys

from eagerflow.saving import listing

if __name__ == "__main__":
    sys.exit(listing.main())
