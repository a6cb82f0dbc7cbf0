"""Suite-wide test settings.

Under CI (`CI` set, as `.ci/run` runs) hypothesis is derandomised: each property test
draws the same examples on every run, so a green run here is a green run there, and a
failure is reproducible. Exploration with fresh random examples happens on developer
machines, where a failing example is saved and replayed by hypothesis's database.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
