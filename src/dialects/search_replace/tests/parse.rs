//! BLOCK-1..5: markers, file names, block text, prose, errors.

use super::super::{parse, Block, ParseError};

fn block(path: &str, search: &str, replace: &str, line: usize) -> Block {
    Block {
        path: path.into(),
        search: search.into(),
        replace: replace.into(),
        line,
    }
}

/// The one block of a reply that must parse.
fn only(reply: &str) -> Block {
    let blocks = parse(reply).unwrap_or_else(|e| panic!("{e}\n{reply}"));
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    blocks.into_iter().next().unwrap()
}

fn error(reply: &str) -> ParseError {
    match parse(reply) {
        Ok(blocks) => panic!("parsed: {blocks:?}"),
        Err(e) => e,
    }
}

// ---- BLOCK-1 markers -------------------------------------------------------------------

#[test]
fn block_1_the_canonical_markers_make_a_block() {
    let b = only("a.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n");
    assert_eq!(b, block("a.py", "old\n", "new\n", 2));
}

#[test]
fn block_1_runs_of_five_to_nine_characters_are_markers() {
    for n in 5..=9 {
        let (l, e, g) = ("<".repeat(n), "=".repeat(n), ">".repeat(n));
        let reply = format!("a.py\n{l} SEARCH\nold\n{e}\nnew\n{g} REPLACE\n");
        assert_eq!(only(&reply), block("a.py", "old\n", "new\n", 2), "{n}");
    }
}

#[test]
fn block_1_runs_of_four_or_ten_characters_are_text() {
    // Inside a block, a 4- or 10-character run is an ordinary line of the text.
    let reply = "a.py\n<<<<<<< SEARCH\n==========\n<<<< SEARCH\n=======\n>>>> REPLACE\n\
                 >>>>>>>>>> REPLACE\n>>>>>>> REPLACE\n";
    assert_eq!(
        only(reply),
        block(
            "a.py",
            "==========\n<<<< SEARCH\n",
            ">>>> REPLACE\n>>>>>>>>>> REPLACE\n",
            2
        )
    );
    // Outside one, a 10-character opening run opens nothing.
    assert_eq!(
        parse("a.py\n<<<<<<<<<< SEARCH\nx\n=======\n"),
        Ok(Vec::new())
    );
}

#[test]
fn block_1_original_and_updated_are_accepted() {
    let b = only("a.py\n<<<<<<< ORIGINAL\nold\n=======\nnew\n>>>>>>> UPDATED\n");
    assert_eq!(b, block("a.py", "old\n", "new\n", 2));
}

#[test]
fn block_1_the_two_spellings_may_be_mixed_within_a_block() {
    let b = only("a.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> UPDATED\n");
    assert_eq!(b.replace, "new\n");
}

#[test]
fn block_1_surrounding_whitespace_and_a_trailing_angle_bracket_are_tolerated() {
    let reply = "a.py\n  \t<<<<<<<   SEARCH>  \n  old\n   =======\t\nnew  \n\t>>>>>>>\tREPLACE \n";
    // The markers' whitespace is not the text's: the lines between keep theirs (BLOCK-3).
    assert_eq!(only(reply), block("a.py", "  old\n", "new  \n", 2));
}

#[test]
fn block_1_words_are_case_sensitive_and_need_a_space() {
    for opener in [
        "<<<<<<< search",
        "<<<<<<<SEARCH",
        "<<<<<<< SEARCH now",
        "<<<<<<< Search",
    ] {
        let reply = format!("a.py\n{opener}\nold\n");
        assert_eq!(parse(&reply), Ok(Vec::new()), "{opener:?} is prose");
    }
}

// ---- BLOCK-2 file names ----------------------------------------------------------------

/// The path a one-block reply names when the given lines precede its opening marker.
fn path_after(lines: &str) -> String {
    only(&format!(
        "{lines}\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"
    ))
    .path
}

#[test]
fn block_2_a_plain_name_on_the_line_before_the_marker() {
    assert_eq!(path_after("src/main.rs"), "src/main.rs");
    assert_eq!(path_after("Makefile"), "Makefile");
}

#[test]
fn block_2_a_name_before_the_opening_fence() {
    let reply =
        "Change this:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n";
    assert_eq!(only(reply), block("src/app.py", "x\n", "y\n", 5));
    assert_eq!(path_after("lib/x.c\n````"), "lib/x.c");
    assert_eq!(path_after("lib/x.c\n~~~c"), "lib/x.c");
}

#[test]
fn block_2_a_name_in_the_fence_info_string() {
    assert_eq!(path_after("```src/app.py"), "src/app.py");
    assert_eq!(path_after("```Dockerfile.dev"), "Dockerfile.dev");
    // A language tag is not a name: the line before the fence is.
    assert_eq!(path_after("tool/run\n```bash"), "tool/run");
}

#[test]
fn block_2_markdown_decorations_are_removed() {
    for (line, want) in [
        ("# src/a.rs", "src/a.rs"),
        ("### src/a.rs", "src/a.rs"),
        ("**src/a.rs**", "src/a.rs"),
        ("src/a.rs:", "src/a.rs"),
        ("`src/a.rs`", "src/a.rs"),
        ("**`src/a.rs`**:", "src/a.rs"),
        ("## `src/a.rs`:", "src/a.rs"),
        ("'src/a.rs'", "src/a.rs"),
        ("\"src/a.rs\"", "src/a.rs"),
        ("  src/a.rs  ", "src/a.rs"),
    ] {
        assert_eq!(path_after(line), want, "{line:?}");
    }
}

#[test]
fn block_2_a_name_with_spaces_must_be_quoted() {
    assert_eq!(path_after("`docs/My File.md`"), "docs/My File.md");
    assert_eq!(path_after("\"docs/My File.md\":"), "docs/My File.md");
    let e = error("Here is the fix:\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n");
    assert_eq!(e.line, 2);
    assert_eq!(e.found, "'Here is the fix:' (line 1)");
}

#[test]
fn block_2_unicode_names_are_kept_whole() {
    assert_eq!(path_after("**docs/héllo-世界.md**"), "docs/héllo-世界.md");
}

#[test]
fn block_2_a_block_without_a_name_edits_the_previous_blocks_file() {
    let reply = "a.py\n```python\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n```\n\n\
                 ```python\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n```\n\
                 <<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n";
    assert_eq!(
        parse(reply),
        Ok(vec![
            block("a.py", "one\n", "1\n", 3),
            block("a.py", "two\n", "2\n", 11),
            block("a.py", "three\n", "3\n", 17),
        ])
    );
}

#[test]
fn block_2_a_closing_fence_or_marker_before_a_block_is_not_a_name() {
    // The previous block's closing fence sits right above the next opening fence.
    let reply = "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n```\n\
                 <<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\n```\n";
    let blocks = parse(reply).unwrap();
    assert_eq!(blocks[1].path, "a.py");
    // A divider used as a heading underline is not a name either.
    let e = error("Title\n=======\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
    assert_eq!((e.line, e.found.as_str()), (3, "'=======' (line 2)"));
}

#[test]
fn block_2_a_name_needs_a_letter_or_a_digit() {
    for line in ["...", "---", "***", "`..`"] {
        let e = error(&format!(
            "{line}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
        ));
        assert_eq!(e.found, format!("'{line}' (line 1)"));
    }
    assert_eq!(path_after("_/1"), "_/1");
}

#[test]
fn block_2_a_later_name_overrides_the_previous_file() {
    let reply = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\
                 b.py\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\n";
    let paths: Vec<String> = parse(reply).unwrap().into_iter().map(|b| b.path).collect();
    assert_eq!(paths, ["a.py", "b.py"]);
}

// ---- BLOCK-3 block text ------------------------------------------------------------------

#[test]
fn block_3_several_lines_are_joined_with_lf_and_end_with_one() {
    let b = only("a\n<<<<<<< SEARCH\nx\n\n  y\n=======\n\tz\n>>>>>>> REPLACE");
    assert_eq!(
        (b.search.as_str(), b.replace.as_str()),
        ("x\n\n  y\n", "\tz\n")
    );
}

#[test]
fn block_3_no_line_is_an_empty_text_and_one_blank_line_is_a_line_break() {
    let new_file = only("new.txt\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n");
    assert_eq!(
        (new_file.search.as_str(), new_file.replace.as_str()),
        ("", "hello\n")
    );
    let delete = only("a\n<<<<<<< SEARCH\nold\n=======\n>>>>>>> REPLACE\n");
    assert_eq!(delete.replace, "");
    let blank = only("a\n<<<<<<< SEARCH\n\n=======\n\n\n>>>>>>> REPLACE\n");
    assert_eq!(
        (blank.search.as_str(), blank.replace.as_str()),
        ("\n", "\n\n")
    );
}

#[test]
fn block_3_crlf_is_a_line_break_and_a_lone_cr_is_text() {
    let reply = "a.py\r\n```python\r\n<<<<<<< SEARCH\r\nold\r\n=======\r\nnew\r\r\n>>>>>>> REPLACE\r\n```\r\n";
    assert_eq!(only(reply), block("a.py", "old\n", "new\r\n", 3));
}

#[test]
fn block_3_fences_and_prose_inside_a_block_are_text() {
    let b = only("README.md\n<<<<<<< SEARCH\n```sh\nmake\n```\n=======\n# Build\n```sh\nmake all\n```\n>>>>>>> REPLACE\n");
    assert_eq!(b.search, "```sh\nmake\n```\n");
    assert_eq!(b.replace, "# Build\n```sh\nmake all\n```\n");
}

// ---- BLOCK-4 prose -------------------------------------------------------------------------

#[test]
fn block_4_prose_between_blocks_is_ignored_and_blocks_keep_their_order() {
    let reply = "I will make two changes.\n\nFirst, `a.py`:\n\na.py\n```python\n<<<<<<< SEARCH\n\
                 x = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\nThen the docs:\n\nSetup\n=======\n\n\
                 docs/b.md\n```markdown\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n\nDone.\n";
    assert_eq!(
        parse(reply),
        Ok(vec![
            block("a.py", "x = 1\n", "x = 2\n", 7),
            block("docs/b.md", "old\n", "new\n", 21),
        ])
    );
}

#[test]
fn block_4_a_reply_without_blocks_is_an_empty_list() {
    assert_eq!(parse(""), Ok(Vec::new()));
    assert_eq!(parse("Nothing to change.\n=======\n```\n"), Ok(Vec::new()));
}

// ---- BLOCK-5 errors ----------------------------------------------------------------------

#[test]
fn block_5_end_of_text_inside_the_replace_text() {
    let reply = "Fix:\n\na.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\nz\n```\n";
    let e = error(reply);
    assert_eq!(e.line, 11);
    assert_eq!(
        e.to_string(),
        "line 11: expected '>>>>>>> REPLACE' to end the block opened on line 5, found end of text"
    );
}

#[test]
fn block_5_end_of_text_inside_the_search_text() {
    let e = error("a.py\n<<<<<<< SEARCH\nx\ny");
    assert_eq!(
        e.to_string(),
        "line 4: expected '=======' to end the SEARCH text of the block opened on line 2, \
         found end of text"
    );
}

#[test]
fn block_5_the_closing_marker_names_the_spelling_the_block_opened_with() {
    let e = error("a.py\n<<<<<<< ORIGINAL\nx\n=======\n");
    assert_eq!(e.line, 5);
    assert_eq!(
        e.expected,
        "'>>>>>>> UPDATED' to end the block opened on line 2"
    );
}

#[test]
fn block_5_a_missing_divider() {
    let e = error("a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n");
    assert_eq!(e.line, 4);
    assert_eq!(
        e.expected,
        "'=======' between the SEARCH and the REPLACE text of the block opened on line 2"
    );
    assert_eq!(e.found, "'>>>>>>> REPLACE'");
}

#[test]
fn block_5_a_second_divider() {
    let e = error("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n=======\nz\n>>>>>>> REPLACE\n");
    assert_eq!(e.line, 6);
    assert_eq!(
        e.expected,
        "'>>>>>>> REPLACE' to end the block opened on line 2"
    );
    assert!(e.found.starts_with("a second '======='"), "{}", e.found);
}

#[test]
fn block_5_a_block_opened_inside_a_block() {
    let reply = "a.py\n<<<<<<< SEARCH\nx\nb.py\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n";
    let e = error(reply);
    assert_eq!(e.line, 5);
    assert!(e.expected.contains("opened on line 2"), "{}", e.expected);
    assert!(
        e.found.starts_with("'<<<<<<< SEARCH', a new block"),
        "{}",
        e.found
    );
    // The same inside the REPLACE text.
    let e = error("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n<<<<<<< SEARCH\n");
    assert_eq!(e.line, 6);
    assert_eq!(
        e.expected,
        "'>>>>>>> REPLACE' to end the block opened on line 2"
    );
}

#[test]
fn block_5_a_closing_marker_outside_any_block() {
    let e = error("a.py\n<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
    assert_eq!(e.line, 6);
    assert_eq!(
        e.expected,
        "'<<<<<<< SEARCH' to open a block before this line"
    );
    assert_eq!(e.found, "'>>>>>>> REPLACE' outside any block");
}

#[test]
fn block_5_a_first_block_without_a_name() {
    let e = error("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
    assert_eq!(e.line, 1);
    assert_eq!(e.found, "the start of the reply");
    assert!(
        e.expected
            .starts_with("the file's path alone on the line before '<<<<<<< SEARCH'"),
        "{}",
        e.expected
    );
    let e = error("Intro.\n\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n");
    assert_eq!((e.line, e.found.as_str()), (4, "a blank line (line 2)"));
    let e = error("```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n");
    assert_eq!((e.line, e.found.as_str()), (2, "the start of the reply"));
}

#[test]
fn block_5_an_error_anywhere_refuses_the_whole_reply() {
    // The first block is fine; the second is not ended. Nothing is returned.
    let reply = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\nb.py\n<<<<<<< SEARCH\nz\n";
    assert_eq!(error(reply).line, 10);
}

#[test]
fn block_5_long_lines_are_quoted_shortened_at_a_character_boundary() {
    let long = "é ".repeat(50);
    let e = error(&format!(
        "{long}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
    ));
    assert_eq!(e.found, format!("'{}…' (line 1)", "é ".repeat(30)));
}
