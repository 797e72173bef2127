"""`editref mcp` driven by the official Python MCP SDK, as an MCP client would drive it.

Usage: python client_test.py PATH_TO_EDITREF [CHECK...]

Each check starts its own server (stdio, or streamable HTTP on a loopback port the server picks)
in a fresh temporary directory, and looks at the exact bytes on disk afterwards. A refusal must
leave the file untouched and no temp file behind. The checks live in the checks_*.py modules
beside this file (what they share in support.py). The last line is "N passed, N failed"; the
exit status is 0 only when every check passed.
"""

import asyncio
import os
import sys
import tempfile
import traceback
from pathlib import Path

import support

# Importing a module registers its checks, in this order.
import checks_tools  # noqa: F401,E402
import checks_roots  # noqa: F401,E402
import checks_http  # noqa: F401,E402
import checks_wire  # noqa: F401,E402


async def main():
    passed, failed = 0, 0
    only = sys.argv[2:]
    for fn in support.CHECKS:
        if only and fn.__name__ not in only:
            continue
        with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as state:
            os.environ["XDG_STATE_HOME"] = state
            try:
                await asyncio.wait_for(fn(Path(d).resolve()), 120)
                print(f"ok   {fn.__name__}", flush=True)
                passed += 1
            except BaseException:  # noqa: BLE001 - report every failure, then go on
                print(f"FAIL {fn.__name__}\n{traceback.format_exc()}", flush=True)
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    support.EDITREF = os.path.abspath(sys.argv[1])
    sys.exit(asyncio.run(main()))
