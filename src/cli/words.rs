//! The command line's own words in a refusal. The tools' messages are written for a model and
//! name its JSON parameters (`replace_all`, `start_line`); a person at a shell typed
//! `--replace-all` and `--start`, and the message should tell them what to type.
//!
//! Only the first line of a message is prose the tools wrote; the lines after it quote the
//! model's text and the file's (`String: …`, the closest lines), which must stay exactly as
//! they are. Each subcommand has its own table, because the same name means different things:
//! `old_string` is `--old-string` for `edit` but a key of the JSON that `multi-edit --edits`
//! takes, where the tool's word is already the right one.

/// A parameter of a tool and the flag that carries it on the command line.
pub type Word = (&'static str, &'static str);

/// A subcommand's words: its flags, and the flags that are switches (given or not, never
/// "set to true"). The default has none, for subcommands whose messages need none
/// (`multi-edit`, whose edits are the tool's own JSON, and the patch formats).
#[derive(Clone, Copy, Debug, Default)]
pub struct Words {
    /// Parameter → flag.
    pub flags: &'static [Word],
    /// The parameters whose flag is a switch.
    pub switches: &'static [&'static str],
}

/// `editref edit`.
pub const EDIT: Words = Words {
    flags: &[
        ("old_string", "--old-string"),
        ("new_string", "--new-string"),
        ("replace_all", "--replace-all"),
        ("expected_replacements", "--expected-replacements"),
        ("dry_run", "--dry-run"),
    ],
    switches: &["replace_all", "dry_run"],
};

/// `editref read`.
pub const READ: Words = Words {
    flags: &[
        ("offset", "--offset"),
        ("limit", "--limit"),
        ("pages", "--pages"),
    ],
    switches: &[],
};

/// `editref write`.
pub const WRITE: Words = Words {
    flags: &[("content", "--content")],
    switches: &[],
};

/// `editref notebook-edit`.
pub const NOTEBOOK_EDIT: Words = Words {
    flags: &[
        ("cell_id", "--cell-id"),
        ("new_source", "--new-source"),
        ("cell_type", "--cell-type"),
        ("edit_mode", "--edit-mode"),
    ],
    switches: &[],
};

/// `editref line-edit`.
pub const LINE_EDIT: Words = Words {
    flags: &[
        ("start_line", "--start"),
        ("end_line", "--end"),
        ("new_content", "--content"),
        ("expected_text", "--expected"),
        ("dry_run", "--dry-run"),
    ],
    switches: &["dry_run"],
};

/// `editref undo`.
pub const UNDO: Words = Words {
    flags: &[("steps", "--steps")],
    switches: &[],
};

/// `editref text-editor`.
pub const TEXT_EDITOR: Words = Words {
    flags: &[
        ("view_range", "--view-range"),
        ("file_text", "--file-text"),
        ("old_str", "--old-str"),
        ("new_str", "--new-str"),
        ("insert_line", "--insert-line"),
        ("insert_text", "--insert-text"),
    ],
    switches: &[],
};

impl Words {
    /// `message` with its first line in this subcommand's words; the rest untouched.
    pub fn apply(&self, message: &str) -> String {
        let (first, rest) = match message.find('\n') {
            Some(i) => message.split_at(i),
            None => (message, ""),
        };
        let mut line = first.to_string();
        for &name in self.switches {
            let Some(flag) = self.flag(name) else {
                continue;
            };
            for (from, to) in [
                (format!("set {name} to true"), format!("pass {flag}")),
                (format!("set `{name}` to true"), format!("pass {flag}")),
                (format!("{name} is false"), format!("{flag} was not given")),
                (
                    format!("`{name}` is false"),
                    format!("{flag} was not given"),
                ),
            ] {
                line = line.replace(&from, &to);
            }
        }
        for &(name, flag) in self.flags {
            line = replace_word(&line, name, flag);
        }
        line.push_str(rest);
        line
    }

    fn flag(&self, name: &str) -> Option<&'static str> {
        self.flags.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }
}

/// Replaces `name` where it stands as a whole identifier (not inside `old_string_x` or
/// `my_old_string`), backticked or not.
fn replace_word(line: &str, name: &str, flag: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find(name) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + name.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            out.push_str(name);
        } else {
            out.push_str(flag);
        }
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_is_passed_not_set_to_true() {
        let m = "Found 2 matches of the string to replace, but replace_all is false. To replace \
                 all occurrences, set replace_all to true.\nString: replace_all\nMatches: 1, 2";
        assert_eq!(
            EDIT.apply(m),
            "Found 2 matches of the string to replace, but --replace-all was not given. To \
             replace all occurrences, pass --replace-all.\nString: replace_all\nMatches: 1, 2"
        );
    }

    #[test]
    fn names_become_flags_only_as_whole_words_on_the_first_line() {
        assert_eq!(
            LINE_EDIT
                .apply("start_line must be 1 to 4; my_start_line and `end_line` stay\nstart_line"),
            "--start must be 1 to 4; my_start_line and `--end` stay\nstart_line"
        );
        assert_eq!(
            Words::default().apply("set replace_all to true"),
            "set replace_all to true"
        );
    }
}
