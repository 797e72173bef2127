"""The tools as a client sees them: their list and schemas, and each tool's calls over stdio —
results read back, refusals, and the exact bytes on disk after each."""

from mcp.shared.exceptions import MCPError

from support import (ALL_TOOLS, REQUIRED, TOOLS, call, check, equal, expect, journals,
                     no_temp_files, ok, refused, stdio, text_of)


@check
async def lists_the_tools_with_schemas_and_hints(tmp):
    async with stdio(tmp) as s:
        tools = (await s.list_tools()).tools
        equal([t.name for t in tools], TOOLS, "tool names")
        for t in tools:
            equal(t.input_schema.get("type"), "object", f"{t.name} inputSchema type")
            equal(t.input_schema.get("required"), REQUIRED[t.name], f"{t.name} required")
            expect(t.output_schema is not None, f"{t.name} has an outputSchema")
            equal(t.output_schema.get("type"), "object", f"{t.name} outputSchema type")
            expect(t.title and t.description, f"{t.name} has a title and a description")
            equal(t.annotations.read_only_hint, t.name == "Read", f"{t.name} readOnlyHint")
            equal(t.annotations.idempotent_hint, t.name == "Read", f"{t.name} idempotentHint")
        by_name = {t.name: t for t in tools}
        for t in tools:
            # The tool's result, or a refusal's {"error": ...} (SPEC MCP-3).
            result, refusal = t.output_schema["anyOf"]
            equal(refusal["required"], ["error"], f"{t.name}: the refusal branch")
            expect("stale" in refusal["properties"]["error"]["properties"]["code"]["enum"],
                   f"{t.name}: the refusal's codes")
        expect("oneOf" in by_name["Read"].output_schema["anyOf"][0],
               "Read's outputSchema keeps its variants")
        equal(by_name["Write"].annotations.destructive_hint, True, "Write destructiveHint")
        equal(by_name["Edit"].annotations.destructive_hint, False, "Edit destructiveHint")
        expect("unique" in by_name["Edit"].description, "Edit's description states the rules")


@check
async def tools_option_selects_the_tools(tmp):
    (tmp / "a.txt").write_bytes(b"a\n")
    async with stdio(tmp, "--tools", "Read,Edit") as s:
        equal([t.name for t in (await s.list_tools()).tools], ["Read", "Edit"], "tools")
        try:
            await call(s, "Write", file_path="b.txt", content="x")
            raise AssertionError("a tool not offered must be a protocol error")
        except MCPError:
            pass
    expect(not (tmp / "b.txt").exists(), "nothing written by a tool not offered")


@check
async def edits_a_crlf_file_byte_exactly(tmp):
    f = tmp / "crlf.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    async with stdio(tmp) as s:
        r = ok(await call(s, "Read", file_path="crlf.txt"), "Read")
        equal(r.structured_content["type"], "text", "Read result type")
        expect("two" in text_of(r), "Read shows the lines")
        r = ok(await call(s, "Edit", file_path="crlf.txt", old_string="two\nthree",
                          new_string="2\n3"), "Edit")
        expect(text_of(r).startswith("Replaced 1 occurrence in "), f"summary: {text_of(r)!r}")
        expect("-two" in text_of(r) and "+2" in text_of(r), "the diff is shown")
        equal(r.structured_content["replacements"], 1, "structured replacements")
    equal(f.read_bytes(), b"one\r\n2\r\n3\r\n", "bytes on disk")
    no_temp_files(tmp)


@check
async def edits_a_utf16le_bom_file_byte_exactly(tmp):
    f = tmp / "wide.txt"
    f.write_bytes(b"\xff\xfe" + "h\u00e9llo\nw\u00f6rld\n".encode("utf-16-le"))
    async with stdio(tmp) as s:
        r = ok(await call(s, "Read", file_path=str(f)), "Read")
        expect("w\u00f6rld" in text_of(r), "decoded text")
        ok(await call(s, "Edit", file_path=str(f), old_string="w\u00f6rld",
                      new_string="welt \u2713"), "Edit")
    equal(f.read_bytes(), b"\xff\xfe" + "h\u00e9llo\nwelt \u2713\n".encode("utf-16-le"),
          "bytes on disk")
    no_temp_files(tmp)


@check
async def write_multiedit_and_notebook_edit(tmp):
    async with stdio(tmp) as s:
        r = ok(await call(s, "Write", file_path="new.txt", content="a\nb\nc\n"), "Write")
        expect(text_of(r).startswith("Created "), f"summary: {text_of(r)!r}")
        r = ok(await call(s, "MultiEdit", file_path="new.txt", edits=[
            {"old_string": "a", "new_string": "A"},
            {"old_string": "c", "new_string": "C"},
        ]), "MultiEdit")
        expect(text_of(r).startswith("Applied 2 edits (2 replacements) to "), text_of(r))
        r = ok(await call(s, "Write", file_path="new.txt", content="z\n"), "Write over")
        expect(text_of(r).startswith("Updated "), f"summary: {text_of(r)!r}")
        nb = tmp / "n.ipynb"
        nb.write_text('{"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, '
                      '"source": ["print(1)"], "outputs": [], "execution_count": null}], '
                      '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n')
        ok(await call(s, "Read", file_path="n.ipynb"), "Read notebook")
        r = ok(await call(s, "NotebookEdit", notebook_path="n.ipynb", cell_id="c1",
                          new_source="print(2)"), "NotebookEdit")
        expect("c1" in text_of(r), text_of(r))
    equal((tmp / "new.txt").read_bytes(), b"z\n", "Write bytes")
    expect('"print(2)"' in nb.read_text(), "notebook cell replaced")
    no_temp_files(tmp)


@check
async def an_image_reads_as_an_image(tmp):
    png = bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e2a3e600"
        "00000049454e44ae426082"
    )
    (tmp / "dot.png").write_bytes(png)
    async with stdio(tmp) as s:
        r = ok(await call(s, "Read", file_path="dot.png"), "Read an image")
        equal(r.structured_content["type"], "image", "structured type")
        equal([c.type for c in r.content], ["image"], "content kinds")
        equal(r.content[0].mime_type, "image/png", "mime type")
    equal((tmp / "dot.png").read_bytes(), png, "image untouched")


async def refused_after_a_read(tmp, name, content, refusals, between=None):
    """Writes `content` to `name`, Reads it, runs `between` (a change on disk, or nothing),
    then each refusal — (Edit arguments, expected code, what it is) — and checks that the file
    holds the bytes it had before the refusals and that no temp file is left."""
    f = tmp / name
    f.write_bytes(content)
    async with stdio(tmp) as s:
        ok(await call(s, "Read", file_path=name), "Read")
        if between:
            between(f)
        before = f.read_bytes()
        for args, code, what in refusals:
            refused(await call(s, "Edit", file_path=name, **args), code, what)
    equal(f.read_bytes(), before, "file untouched")
    no_temp_files(tmp)


@check
async def a_stale_edit_is_refused(tmp):
    await refused_after_a_read(
        tmp, "s.txt", b"alpha\nbeta\n",
        [(dict(old_string="beta", new_string="BETA"), "stale", "Edit after a change on disk")],
        between=lambda f: f.write_bytes(b"alpha\nbeta\ngamma, added by someone else\n"))


@check
async def an_ambiguous_edit_is_refused(tmp):
    await refused_after_a_read(
        tmp, "amb.txt", b"x = 1\nx = 1\n",
        [(dict(old_string="x = 1", new_string="x = 2"), "ambiguous", "Edit of a repeated string")])


@check
async def malformed_arguments_are_invalid_input(tmp):
    await refused_after_a_read(tmp, "m.txt", b"keep\n", [
        (dict(old_string="keep", new_string="x", bogus=True), "invalid_input", "unknown field"),
        (dict(old_string="keep", new_string="x", replace_all="perhaps"), "invalid_input",
         "wrong type"),
        (dict(old_string="keep"), "invalid_input", "missing field"),
    ])


@check
async def dialects_and_undo_over_mcp(tmp):
    """apply_patch across two files (one CRLF) and Undo of the whole patch, byte for byte."""
    a, b = tmp / "a.txt", tmp / "b.txt"
    a.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    b.write_bytes(b"alpha\n")
    patch = ("*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n"
             "*** Update File: b.txt\n@@\n-alpha\n+beta\n*** End Patch\n")
    async with stdio(tmp, "--tools", "all", "--undo-dir", str(tmp / "journal")) as s:
        equal([t.name for t in (await s.list_tools()).tools], ALL_TOOLS, "--tools all")
        r = ok(await call(s, "apply_patch", input=patch), "apply_patch")
        equal([f["action"] for f in r.structured_content["files"]], ["updated", "updated"],
              "files updated")
        equal(a.read_bytes(), b"one\r\nTWO\r\nthree\r\n", "a.txt after the patch")
        equal(b.read_bytes(), b"beta\n", "b.txt after the patch")
        ok(await call(s, "Undo", file_path="b.txt"), "Undo")
    equal(a.read_bytes(), b"one\r\ntwo\r\nthree\r\n", "a.txt undone with b.txt")
    equal(b.read_bytes(), b"alpha\n", "b.txt undone")
    no_temp_files(tmp)


@check
async def undo_takes_an_edit_back_from_the_journal_of_the_root(tmp):
    f = tmp / "a.txt"
    f.write_bytes(b"one\r\ntwo\r\n")
    async with stdio(tmp) as s:
        ok(await call(s, "Read", file_path="a.txt"), "Read")
        ok(await call(s, "Edit", file_path="a.txt", old_string="two", new_string="2"), "Edit")
        r = ok(await call(s, "Undo", file_path="a.txt"), "Undo")
        equal(r.structured_content["undone"][0]["tool"], "Edit", "the step undone")
        refused(await call(s, "Undo", file_path="a.txt"), "nothing_to_undo",
                "a second undo, with nothing left")
    equal(f.read_bytes(), b"one\r\ntwo\r\n", "bytes on disk")
    equal(sorted(p.name for p in tmp.iterdir()), ["a.txt"], "nothing but the file in the root")
    found = journals()
    equal(list(found.values()), [bytes(tmp) + b"\n"],
          "one journal, in the state directory, naming the root (UNDO-7)")
    name = next(iter(found))
    # A temporary directory's name (tmpXXXXXXXX) is already safe as it is.
    prefix, digits = name.rsplit("-", 1)
    equal((prefix, len(digits)), (tmp.name, 16), "the journal's name: <root name>-<16 hex>")
    no_temp_files(tmp)


@check
async def every_change_reads_as_a_summary_and_the_diff(tmp):
    """LineEdit, apply_patch, search_replace, the text editor and Undo answer the model in
    words and a diff, as Edit does; structuredContent stays the tool's JSON result."""
    f = tmp / "f.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    async with stdio(tmp, "--tools", "all") as s:
        ok(await call(s, "Read", file_path="f.txt"), "Read")
        r = ok(await call(s, "LineEdit", file_path="f.txt", start_line=2, end_line=2,
                          new_content="TWO\n"), "LineEdit")
        equal(text_of(r).splitlines()[0], "Replaced line 2 of f.txt", "LineEdit summary")
        expect("-two\n+TWO\n" in text_of(r), f"LineEdit diff: {text_of(r)!r}")
        equal(r.structured_content["startLine"], 2, "LineEdit structured startLine")
        equal(f.read_bytes(), b"one\r\nTWO\r\nthree\r\n", "after LineEdit")

        patch = ("*** Begin Patch\n*** Update File: f.txt\n@@\n-three\n+3\n"
                 "*** Add File: g.txt\n+new\n*** End Patch\n")
        r = ok(await call(s, "apply_patch", input=patch), "apply_patch")
        lines = text_of(r).splitlines()
        equal(lines[0], "Changed 2 files: f.txt updated, g.txt created", "apply_patch summary")
        expect("+++ b/g.txt" in lines and "+new" in lines and "-three" in lines,
               f"apply_patch diffs: {text_of(r)!r}")
        equal([x["action"] for x in r.structured_content["files"]], ["updated", "created"],
              "apply_patch structured files")
        equal(f.read_bytes(), b"one\r\nTWO\r\n3\r\n", "after apply_patch")
        equal((tmp / "g.txt").read_bytes(), b"new\n", "g.txt created")

        reply = "g.txt\n<<<<<<< SEARCH\nnew\n=======\nnewer\n>>>>>>> REPLACE\n"
        r = ok(await call(s, "search_replace", text=reply), "search_replace")
        equal(text_of(r).splitlines()[0], "Changed 1 file: g.txt updated",
              "search_replace summary")
        expect("-new\n+newer\n" in text_of(r), f"search_replace diff: {text_of(r)!r}")
        equal((tmp / "g.txt").read_bytes(), b"newer\n", "after search_replace")

        r = ok(await call(s, "str_replace_based_edit_tool", command="str_replace",
                          path="f.txt", old_str="one", new_str="1"), "str_replace")
        expect(text_of(r).startswith("Replaced 1 occurrence in f.txt\n"),
               f"str_replace summary: {text_of(r)!r}")
        expect("-one\n+1\n" in text_of(r), f"str_replace diff: {text_of(r)!r}")
        equal(r.structured_content["command"], "str_replace", "text editor structured command")
        equal(f.read_bytes(), b"1\r\nTWO\r\n3\r\n", "after str_replace")

        r = ok(await call(s, "Undo", file_path="f.txt"), "Undo")
        equal(text_of(r), "Undid 1 write of f.txt:\n- str_replace_based_edit_tool: "
              "f.txt restored", "Undo summary")
        equal(r.structured_content["undone"][0]["files"][0]["action"], "restored",
              "Undo structured action")
    equal(f.read_bytes(), b"one\r\nTWO\r\n3\r\n", "bytes on disk after the Undo")
    no_temp_files(tmp)


@check
async def the_text_editor_is_offered_under_its_older_name(tmp):
    """`--tools Read,str_replace_editor` lists the text editor as str_replace_editor (the name
    older Claude models call), and it works under that name, byte for byte."""
    f = tmp / "e.txt"
    f.write_bytes(b"alpha\r\nbeta\r\n")
    async with stdio(tmp, "--tools", "Read,str_replace_editor") as s:
        tools = (await s.list_tools()).tools
        equal([t.name for t in tools], ["Read", "str_replace_editor"], "tools")
        equal(tools[1].input_schema.get("required"), ["command", "path"], "its schema")
        r = ok(await call(s, "str_replace_editor", command="view", path="e.txt"), "view")
        expect("2\tbeta" in text_of(r), f"view shows numbered lines: {text_of(r)!r}")
        ok(await call(s, "str_replace_editor", command="str_replace", path="e.txt",
                      old_str="beta", new_str="gamma"), "str_replace")
        refused(await call(s, "str_replace_editor", command="str_replace", path="e.txt",
                           old_str="delta", new_str="x"), "not_found", "a missing old_str")
        try:
            await call(s, "str_replace_based_edit_tool", command="view", path="e.txt")
            raise AssertionError("the name not offered must be a protocol error")
        except MCPError:
            pass
    equal(f.read_bytes(), b"alpha\r\ngamma\r\n", "bytes on disk")
    no_temp_files(tmp)
