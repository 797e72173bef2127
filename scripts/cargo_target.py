"""Where cargo builds this workspace, for the Python scripts that run what they build.

`target/` of the checkout, unless CARGO_TARGET_DIR or cargo's configuration puts the build
elsewhere; `scripts/target-dir` asks cargo, and this module asks it, so that a script never
looks for a binary in a directory the build did not write.
"""

import os
import subprocess


def target_dir(repo):
    """The target directory of the workspace at `repo`, as cargo resolves it from `repo` (the
    directory the scripts build in)."""
    out = subprocess.run([os.path.join(str(repo), "scripts", "target-dir")], cwd=str(repo),
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def release_bin(repo, name):
    """The path of the release build of binary `name`."""
    return os.path.join(target_dir(repo), "release", name)
