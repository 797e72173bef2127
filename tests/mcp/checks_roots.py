"""Where a connection may read and write: `--root`, several roots, the client's own roots and
their changes; and the session kept across calls over stdio with the newest revision."""

import asyncio
import warnings

from mcp.shared.exceptions import MCPDeprecationWarning

from support import (call, check, equal, expect, no_temp_files, ok, refused, stdio,
                     stdio_discovered, text_of)


@check
async def paths_outside_the_root_are_refused(tmp):
    root = tmp / "project"
    root.mkdir()
    (tmp / "secret.txt").write_bytes(b"secret\n")
    (root / "link").symlink_to(tmp / "secret.txt")
    async with stdio(root, "--root", str(root)) as s:
        refused(await call(s, "Read", file_path="../secret.txt"), "outside_root", "Read outside")
        refused(await call(s, "Read", file_path="link"), "outside_root", "Read through a link")
        refused(await call(s, "Write", file_path=str(tmp / "new.txt"), content="x"),
                "outside_root", "Write outside")
        ok(await call(s, "Write", file_path="inside.txt", content="in\n"), "Write inside")
    expect(not (tmp / "new.txt").exists(), "nothing created outside")
    equal((tmp / "secret.txt").read_bytes(), b"secret\n", "outside file untouched")
    equal((root / "inside.txt").read_bytes(), b"in\n", "inside file written")
    no_temp_files(tmp)


@check
async def several_roots_each_accept_their_files(tmp):
    a, b = tmp / "a", tmp / "b"
    a.mkdir()
    b.mkdir()
    async with stdio(tmp, "--root", str(a), "--root", str(b)) as s:
        ok(await call(s, "Write", file_path=str(a / "1.txt"), content="1\n"), "Write in a")
        ok(await call(s, "Write", file_path=str(b / "2.txt"), content="2\n"), "Write in b")
        ok(await call(s, "Read", file_path=str(b / "2.txt")), "Read in b")
        ok(await call(s, "Edit", file_path=str(b / "2.txt"), old_string="2",
                      new_string="two"), "Edit in b")
        # The working directory lies under neither root: relative paths start at the first.
        ok(await call(s, "Write", file_path="c.txt", content="c\n"), "relative Write")
        refused(await call(s, "Write", file_path=str(tmp / "d.txt"), content="x"),
                "outside_root", "Write outside both roots")
        refused(await call(s, "Write", file_path=str(a / ".." / "d.txt"), content="x"),
                "outside_root", "Write out of a root through ..")
    equal((a / "1.txt").read_bytes(), b"1\n", "a/1.txt")
    equal((b / "2.txt").read_bytes(), b"two\n", "b/2.txt")
    equal((a / "c.txt").read_bytes(), b"c\n", "a/c.txt")
    expect(not (tmp / "d.txt").exists(), "nothing written outside the roots")
    no_temp_files(tmp)


@check
async def the_clients_roots_confine_and_follow_changes(tmp):
    first, second = tmp / "first", tmp / "second"
    first.mkdir()
    second.mkdir()
    roots = [str(first)]
    async with stdio(tmp, roots=roots) as s:
        ok(await call(s, "Write", file_path=str(first / "f.txt"), content="f\n"), "in root")
        refused(await call(s, "Write", file_path=str(second / "s.txt"), content="s\n"),
                "outside_root", "outside the client's root")
        roots[:] = [str(second)]
        s.roots_fetched.clear()
        with warnings.catch_warnings():
            # Roots are deprecated in the newest revision; this session negotiated an older one.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await s.send_roots_list_changed()
        await asyncio.wait_for(s.roots_fetched.wait(), 30)
        ok(await call(s, "Write", file_path=str(second / "s.txt"), content="s\n"), "new root")
        refused(await call(s, "Write", file_path=str(first / "g.txt"), content="g\n"),
                "outside_root", "the old root after the change")
    equal((first / "f.txt").read_bytes(), b"f\n", "first/f.txt")
    equal((second / "s.txt").read_bytes(), b"s\n", "second/s.txt")
    expect(not (first / "g.txt").exists(), "nothing written in the old root")
    no_temp_files(tmp)


@check
async def the_newest_revision_keeps_the_session_over_stdio(tmp):
    f = tmp / "n.txt"
    f.write_bytes(b"a\r\nb\r\n")
    async with stdio_discovered(tmp) as s:
        expect("2026-07-28" in s.discovered.supported_versions,
               f"revisions: {s.discovered.supported_versions}")
        ok(await call(s, "Read", file_path="n.txt"), "Read")
        ok(await call(s, "Edit", file_path="n.txt", old_string="b", new_string="c"), "Edit")
    equal(f.read_bytes(), b"a\r\nc\r\n", "bytes on disk")


@check
async def patches_and_blocks_go_to_the_root_of_their_files(tmp):
    """With two roots, an apply_patch or search_replace call goes to the root its files lie
    under (found by parsing the patch or the reply), and one whose files lie under both roots
    is refused with outside_root, changing nothing."""
    a, b = tmp / "a", tmp / "b"
    a.mkdir()
    b.mkdir()
    (a / "x.txt").write_bytes(b"x = 1\r\n")
    (b / "y.txt").write_bytes(b"y = 1\n")
    (b / "z.txt").write_bytes(b"z = 1\n")
    async with stdio(tmp, "--tools", "all", "--root", str(a), "--root", str(b)) as s:
        # Both files under the second root: served by its session.
        patch = (f"*** Begin Patch\n*** Update File: {b / 'y.txt'}\n@@\n-y = 1\n+y = 2\n"
                 f"*** Add File: {b / 'sub' / 'new.txt'}\n+fresh\n*** End Patch\n")
        ok(await call(s, "apply_patch", input=patch), "apply_patch under the second root")
        op = {"type": "update_file", "path": str(b / "z.txt"), "diff": "@@\n-z = 1\n+z = 2\n"}
        ok(await call(s, "apply_patch", **op), "one operation under the second root")
        reply = f"{b / 'y.txt'}\n<<<<<<< SEARCH\ny = 2\n=======\ny = 3\n>>>>>>> REPLACE\n"
        ok(await call(s, "search_replace", text=reply), "search_replace under the second root")
        # A patch across both roots: refused whole.
        across = (f"*** Begin Patch\n*** Update File: {a / 'x.txt'}\n@@\n-x = 1\n+x = 2\n"
                  f"*** Update File: {b / 'z.txt'}\n@@\n-z = 2\n+z = 3\n*** End Patch\n")
        r = refused(await call(s, "apply_patch", input=across), "outside_root",
                    "a patch across two roots")
        expect("more than one root" in text_of(r), text_of(r))
        blocks = (f"{a / 'x.txt'}\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n"
                  f"{b / 'z.txt'}\n<<<<<<< SEARCH\nz = 2\n=======\nz = 3\n>>>>>>> REPLACE\n")
        refused(await call(s, "search_replace", text=blocks), "outside_root",
                "blocks across two roots")
        moved = (f"*** Begin Patch\n*** Update File: {b / 'z.txt'}\n*** Move to: {a / 'z.txt'}\n"
                 f"@@\n-z = 2\n+z = 3\n*** End Patch\n")
        refused(await call(s, "apply_patch", input=moved), "outside_root",
                "a move from one root into the other")
        outside = f"*** Begin Patch\n*** Add File: {tmp / 'c.txt'}\n+no\n*** End Patch\n"
        refused(await call(s, "apply_patch", input=outside), "outside_root",
                "a patch outside both roots")
    equal((a / "x.txt").read_bytes(), b"x = 1\r\n", "a/x.txt untouched")
    equal((b / "y.txt").read_bytes(), b"y = 3\n", "b/y.txt")
    equal((b / "z.txt").read_bytes(), b"z = 2\n", "b/z.txt")
    equal((b / "sub" / "new.txt").read_bytes(), b"fresh\n", "b/sub/new.txt")
    expect(not (a / "z.txt").exists(), "nothing moved into the first root")
    expect(not (tmp / "c.txt").exists(), "nothing created outside the roots")
    no_temp_files(tmp)
