"""The parts of `scripts/bench-floor`, one job per module.

- `inputs`: the generated source-like inputs and the strings the cases edit;
- `stats`: the quantile and the millisecond format every table shares;
- `commands`: one command of a case, run as a whole process (`Cmd`) or as one call to a
  running `editref serve` (`ServeCmd`), with its wall and CPU times and peak memory;
- `cases`: the cases, each a set of commands measured side by side, and the targets of the
  performance budget they check;
- `tables`: the results as plain-text and Markdown tables, and the README sections;
- `charts`: the SVG bar chart of one run and the trend chart over recorded runs;
- `record`: the machine and commit a run was taken on, and the history of recorded runs;
- `cli`: the command line.
"""
import os

# The checkout: scripts/bench_floor/ is two levels below it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
