#!/usr/bin/env python3
"""The "safe edit" pattern of a widely shared coding-agent tutorial, as a peer for benchmarks.

`edit_file` is the tutorial's function unchanged (uniqueness check, temp file in the same
directory, atomic `os.replace`); only the command-line wrapper below is added so that
`scripts/bench-floor` can run it as a process, like `editref edit` and `cp`.

Known differences from editref, kept on purpose because they are the pattern's own:
no fsync, `Path.read_text()` decodes with the locale encoding and universal newlines (so a
CRLF file is written back with LF endings, and UTF-16 files are refused with an exception),
the temp file gets mode 0600 from `mkstemp`, and no diff is produced.

Usage: safe_edit.py FILE OLD NEW   (prints the result as JSON; exit 1 when refused)
"""
import json
import os
import sys
import tempfile
from pathlib import Path


def edit_file(path: str, old: str, new: str) -> dict:
    p = Path(path)
    if not p.exists():
        return {'ok': False, 'error': f'file not found: {path}'}

    content = p.read_text()

    if old not in content:
        return {'ok': False, 'error': f'old string not found in {path}'}

    occurrences = content.count(old)
    if occurrences > 1:
        return {
            'ok': False,
            'error': f'old string appears {occurrences} times in {path}; '
                     'provide more surrounding context so the match is unique',
        }

    new_content = content.replace(old, new, 1)

    tmp_fd, tmp_path = tempfile.mkstemp(dir=p.parent, prefix=f'.{p.name}.', suffix='.tmp')
    try:
        with os.fdopen(tmp_fd, 'w') as fh:
            fh.write(new_content)
        os.replace(tmp_path, p)
    except Exception:
        if os.path.exists(tmp_path):
            os.remove(tmp_path)
        raise

    return {
        'ok': True,
        'path': str(p),
        'bytes_before': len(content),
        'bytes_after': len(new_content),
    }


def main(argv: list) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    result = edit_file(argv[1], argv[2], argv[3])
    print(json.dumps(result))
    return 0 if result['ok'] else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
