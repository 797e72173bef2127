//! The case generator: a [`GenCase`] — files made of the hard parts, and a sequence of calls
//! with harness actions between them — built from an `arbitrary` byte source.
//!
//! The same function serves two drivers: a seed (through [`from_seed`], which stretches a
//! `u64` into bytes, so a run is repeatable from its seed) and the cargo-fuzz engine (which
//! hands [`generate`] its own bytes). A generated case is *meaningful* most of the time: the
//! `old_string` of an edit is cut from the text the file holds at that point (as the generator
//! guesses it), then sometimes perturbed the way models perturb it — straight quotes for curly
//! ones, a Read line prefix, an abbreviated tag, CRLF, a typo. The dialects' steps are made the
//! same way ([`super::dialects`]). Between calls the harness plays another program: it rewrites
//! a file, moves its mtime, or makes or swaps a symlink. The expected outcome is not generated
//! at all: it comes from running the reference on the same case.

use super::dialects::{self, Block, EditorCommand, PatchOp};
pub(crate) use super::edits::{apply_guess, gen_edit};
pub use super::gen_edit::GenEdit;
pub(crate) use super::gen_edit::Guess;
use super::notebook::{self, NotebookCall};
use super::parts::{self, Allowed, Encoding, Endings};
pub use super::seed::seed_bytes;
use arbitrary::{Result, Unstructured};

/// One file of a generated case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenFile {
    /// Case path.
    pub path: String,
    /// The text, line endings included.
    pub text: String,
    /// How it is stored.
    pub encoding: Encoding,
    /// Its permission bits.
    pub mode: u32,
}

/// One step of a generated case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenStep {
    /// Read, whole or a window of lines.
    Read {
        /// Case path.
        path: String,
        /// `offset` and `limit`, when a window.
        window: Option<(u64, u64)>,
    },
    /// Edit.
    Edit {
        /// Case path.
        path: String,
        /// The edit.
        edit: GenEdit,
    },
    /// MultiEdit.
    MultiEdit {
        /// Case path.
        path: String,
        /// The edits, in order.
        edits: Vec<GenEdit>,
    },
    /// Write.
    Write {
        /// Case path.
        path: String,
        /// The content.
        content: String,
    },
    /// Another program rewrites the file (same encoding).
    Modify {
        /// Case path.
        path: String,
        /// The new text.
        text: String,
        /// Its encoding.
        encoding: Encoding,
    },
    /// The file's mtime moves forward, its content stays.
    Touch {
        /// Case path.
        path: String,
    },
    /// Another program makes `path` a symlink to `target` (new, or swapped for what was there).
    Link {
        /// Case path of the link.
        path: String,
        /// Its target, relative to the link's directory.
        target: String,
    },
    /// The text editor (`str_replace_based_edit_tool`), one command.
    Editor {
        /// Case path.
        path: String,
        /// The command and its parameters.
        command: EditorCommand,
    },
    /// LineEdit.
    LineEdit {
        /// Case path.
        path: String,
        /// `start_line`.
        start: u64,
        /// `end_line`.
        end: u64,
        /// `new_content`.
        content: String,
        /// `expected_text`, when sent.
        expected: Option<String>,
    },
    /// apply_patch with these operations.
    Patch {
        /// The operations, in patch order.
        ops: Vec<PatchOp>,
    },
    /// search_replace with these blocks.
    Blocks {
        /// The blocks, in reply order.
        blocks: Vec<Block>,
    },
    /// NotebookEdit of a notebook.
    NotebookEdit {
        /// Case path of the notebook.
        path: String,
        /// The call's fields.
        call: NotebookCall,
    },
}

/// A generated case: files, symlinks and hard links to them, and steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenCase {
    /// The files before the first step.
    pub files: Vec<GenFile>,
    /// Symlinks (`link path`, `target`) created before the first step.
    pub links: Vec<(String, String)>,
    /// Hard links (`other name`, `file`) made before the first step (DISK-3).
    pub hardlinks: Vec<(String, String)>,
    /// The steps.
    pub steps: Vec<GenStep>,
}

/// The case of one seed, for an implementation declaring `allowed`.
pub fn from_seed(seed: u64, allowed: &Allowed) -> GenCase {
    let bytes = seed_bytes(seed, 4096);
    let mut u = Unstructured::new(&bytes);
    // Running out of bytes only makes later choices the first option; it never fails, but the
    // fallback keeps this total should that change.
    generate(&mut u, allowed).unwrap_or_else(|_| GenCase {
        files: Vec::new(),
        links: Vec::new(),
        hardlinks: Vec::new(),
        steps: Vec::new(),
    })
}

/// Generates one case from `u`, using only what `allowed` declares.
pub fn generate(u: &mut Unstructured<'_>, allowed: &Allowed) -> Result<GenCase> {
    let encoding = Encoding::pick(u, allowed)?;
    let endings = Endings::pick(u, allowed)?;
    let mut text = parts::file_text(u, endings, encoding.narrow())?;
    let encoding = match encoding {
        // A windows-1252 file needs a byte above 0x7F to be one; otherwise it is UTF-8.
        Encoding::Windows1252 if text.is_ascii() => {
            text.push_str("caf\u{e9}\n");
            Encoding::Windows1252
        }
        e => e,
    };
    let mut files = vec![GenFile {
        path: "a.txt".into(),
        text: text.clone(),
        encoding,
        mode: parts::mode(u)?,
    }];
    let mut links = Vec::new();
    if allowed.meets("symlink") && u.ratio(1, 6)? {
        links.push(("link.txt".to_string(), "a.txt".to_string()));
    }
    // Another name of the file (DISK-3): every write through either name is refused.
    let mut hardlinks = Vec::new();
    if allowed.has("hard_link") && u.ratio(1, 16)? {
        hardlinks.push(("same.txt".to_string(), "a.txt".to_string()));
    }
    let mut guess = vec![Guess {
        path: "a.txt".into(),
        text: parts::lf_view(&text),
        encoding,
    }];
    if u.ratio(1, 8)? {
        let t = parts::file_text(u, Endings::Lf, false)?;
        files.push(GenFile {
            path: "b.txt".into(),
            text: t.clone(),
            encoding: Encoding::Utf8,
            mode: parts::mode(u)?,
        });
        guess.push(Guess {
            path: "b.txt".into(),
            text: t,
            encoding: Encoding::Utf8,
        });
    }
    let mut nb = None;
    if allowed.has("notebook_edit") && u.ratio(1, 5)? {
        let (text, model) = notebook::file(u)?;
        files.push(GenFile {
            path: notebook::PATH.into(),
            text,
            encoding: Encoding::Utf8,
            mode: 0o644,
        });
        nb = Some(model);
    }
    // Every name of a file, links and hard links alike, may be the one a call uses.
    let names: Vec<(String, String)> = links.iter().chain(&hardlinks).cloned().collect();
    let mut steps = Vec::new();
    let skip_first_read = allowed.has("read_before_write") && u.ratio(1, 10)?;
    if !skip_first_read {
        for g in &guess {
            steps.push(GenStep::Read {
                path: call_path(u, &names, &g.path)?,
                window: None,
            });
        }
        if nb.is_some() {
            steps.push(GenStep::Read {
                path: notebook::PATH.into(),
                window: None,
            });
        }
    }
    // The links as they are at each point of the sequence (a `Link` step changes them), and
    // as the model believes them: it learns of a new link, but not that one was turned
    // elsewhere behind its back, so it goes on naming the link for the file it saw there.
    let mut now_links = links.clone();
    let mut believed = names.clone();
    // The link a `Link` step just made or turned: the call after it mostly names it, as the
    // model goes on using the name it knows.
    let mut fresh_link: Option<String> = None;
    // Files an apply_patch deleted and nothing has made again: a `touch` of one has nothing to
    // touch, so the model reads it instead (and learns that it is gone).
    let mut gone: Vec<String> = Vec::new();
    let mut count = u.int_in_range(1..=4)?;
    let mut done = 0;
    while done < count {
        done += 1;
        let via_link = match fresh_link.take() {
            Some(link) if u.ratio(3, 4)? => {
                believed
                    .iter()
                    .find(|(l, _)| *l == link)
                    .and_then(|(l, t)| {
                        guess
                            .iter()
                            .position(|g| g.path == *t)
                            .map(|g| (g, l.clone()))
                    })
            }
            _ => None,
        };
        let (g, path) = match via_link {
            Some(pair) => pair,
            None => {
                let g = u.choose_index(guess.len())?;
                (g, call_path(u, &believed, &guess[g].path)?)
            }
        };
        // A link the model has named is the one worth turning elsewhere behind its back.
        let named = steps.iter().any(|s| match s {
            GenStep::Read { path, .. } | GenStep::Edit { path, .. } => {
                now_links.iter().any(|(l, _)| l == path)
            }
            _ => false,
        });
        let kind = pick_kind(u, allowed, named, nb.is_some())?;
        let crlf = allowed.has("crlf");
        let step = match kind {
            Kind::Read => read_step(u, allowed, &path)?,
            Kind::Edit => {
                let edit = gen_edit(u, allowed, &guess[g].text, guess[g].encoding)?;
                guess[g].text = apply_guess(&guess[g].text, &edit);
                GenStep::Edit { path, edit }
            }
            Kind::MultiEdit => {
                let n = u.int_in_range(1..=3)?;
                let mut edits = Vec::new();
                let mut t = guess[g].text.clone();
                for _ in 0..n {
                    let e = gen_edit(u, allowed, &t, guess[g].encoding)?;
                    t = apply_guess(&t, &e);
                    edits.push(e);
                }
                guess[g].text = t;
                GenStep::MultiEdit { path, edits }
            }
            Kind::Write => {
                let content = parts::new_text(u, guess[g].encoding.narrow(), crlf)?;
                let target = *u.choose(&[path.as_str(), "new.txt", "sub/new.txt"])?;
                if target == path {
                    guess[g].text = parts::lf_view(&content);
                }
                GenStep::Write {
                    path: target.to_string(),
                    content,
                }
            }
            Kind::Modify => {
                let extra = parts::line(u, guess[g].encoding.narrow())?;
                let text = format!("{}{}\n", guess[g].text, extra);
                guess[g].text = text.clone();
                GenStep::Modify {
                    path: guess[g].path.clone(),
                    text,
                    encoding: guess[g].encoding,
                }
            }
            Kind::Touch if gone.contains(&guess[g].path) => GenStep::Read { path, window: None },
            Kind::Touch => GenStep::Touch {
                path: guess[g].path.clone(),
            },
            Kind::Link => {
                let step = link_step(u, &mut now_links, &guess)?;
                if let GenStep::Link { path, target } = &step {
                    if !believed.iter().any(|(l, _)| l == path) {
                        believed.push((path.clone(), target.clone()));
                    }
                    fresh_link = Some(path.clone());
                }
                step
            }
            Kind::Editor => {
                let command = dialects::editor(u, allowed, &mut guess[g], &path)?;
                GenStep::Editor { path, command }
            }
            Kind::LineEdit => {
                let (start, end, content, expected) =
                    dialects::line_edit(u, allowed, &mut guess[g])?;
                GenStep::LineEdit {
                    path,
                    start,
                    end,
                    content,
                    expected,
                }
            }
            Kind::Patch => {
                let others: Vec<String> = guess
                    .iter()
                    .filter(|o| o.path != guess[g].path)
                    .map(|o| o.path.clone())
                    .collect();
                let ops = dialects::patch(u, allowed, &mut guess[g], &path, &others)?;
                GenStep::Patch { ops }
            }
            Kind::Blocks => {
                let blocks = dialects::blocks(u, allowed, &mut guess[g], &path)?;
                GenStep::Blocks { blocks }
            }
            Kind::Notebook => match nb.as_mut() {
                Some(model) if !u.ratio(1, 5)? => GenStep::NotebookEdit {
                    path: notebook::PATH.into(),
                    call: notebook::call(u, model)?,
                },
                _ => GenStep::Read {
                    path: notebook::PATH.into(),
                    window: None,
                },
            },
        };
        let mut step = step;
        if !crlf {
            // A CRLF a call sends is what `crlf` is about; without it, only the file's own
            // lone CRs are sent (a cut across a CR and the LF after it would make one).
            for t in sent_texts(&mut step) {
                while t.contains("\r\n") {
                    *t = t.replace("\r\n", "\n");
                }
            }
        }
        note_gone(&mut gone, &step, &guess[g].path);
        // A link made or turned last would test nothing: a call follows it.
        if done == count && matches!(step, GenStep::Link { .. }) {
            count += 1;
        }
        steps.push(step);
    }
    Ok(GenCase {
        files,
        links,
        hardlinks,
        steps,
    })
}

/// The strings a call step sends that may hold a line break.
fn sent_texts(step: &mut GenStep) -> Vec<&mut String> {
    match step {
        GenStep::Edit { edit, .. } => vec![&mut edit.old, &mut edit.new],
        GenStep::MultiEdit { edits, .. } => edits
            .iter_mut()
            .flat_map(|e| [&mut e.old, &mut e.new])
            .collect(),
        GenStep::Write { content, .. } => vec![content],
        GenStep::Editor {
            command: EditorCommand::StrReplace { old, new },
            ..
        } => std::iter::once(old).chain(new.as_mut()).collect(),
        GenStep::Editor {
            command: EditorCommand::Insert { text, .. },
            ..
        } => vec![text],
        GenStep::LineEdit {
            content, expected, ..
        } => std::iter::once(content).chain(expected.as_mut()).collect(),
        GenStep::Blocks { blocks } => blocks
            .iter_mut()
            .flat_map(|b| [&mut b.search, &mut b.replace])
            .collect(),
        _ => Vec::new(),
    }
}

/// Keeps `gone` true after `step` (taken on the file `guessed`): an apply_patch's Delete
/// removes a file, and its Add or Update, a Write or a change behind the model's back makes it
/// again.
fn note_gone(gone: &mut Vec<String>, step: &GenStep, guessed: &str) {
    match step {
        GenStep::Patch { ops } => {
            for op in ops {
                let path = op.path().to_string();
                gone.retain(|p| *p != path);
                if matches!(op, PatchOp::Delete { .. }) {
                    gone.push(path);
                }
            }
        }
        GenStep::Write { path, .. } => gone.retain(|p| p != path),
        GenStep::Modify { .. } => gone.retain(|p| p != guessed),
        _ => {}
    }
}

/// The kinds of step after the first reads.
#[derive(Clone, Copy)]
enum Kind {
    Read,
    Edit,
    MultiEdit,
    Write,
    Modify,
    Touch,
    Link,
    Editor,
    LineEdit,
    Patch,
    Blocks,
    Notebook,
}

/// A step kind, weighted towards edits, among the declared tools; a link already named by a
/// call makes a `Link` step likelier, a notebook in the case makes NotebookEdit one.
fn pick_kind(
    u: &mut Unstructured<'_>,
    allowed: &Allowed,
    link_named: bool,
    notebook: bool,
) -> Result<Kind> {
    let mut options = vec![Kind::Edit; 6];
    options.push(Kind::Read);
    if allowed.has("multi_edit") {
        options.extend([Kind::MultiEdit, Kind::MultiEdit]);
    }
    if allowed.has("write") {
        options.push(Kind::Write);
    }
    if allowed.has("stale_detection") {
        options.extend([Kind::Modify, Kind::Touch]);
    }
    // A link made or swapped between two calls: what a later call names may then be another
    // file, which the session must judge by its resolved target (PATH-1, SESSION-1/2).
    if allowed.has("symlink") && allowed.has("read_before_write") {
        options.push(Kind::Link);
        if link_named {
            options.extend([Kind::Link; 4]);
        }
    }
    if notebook {
        options.extend([Kind::Notebook; 3]);
    }
    for (feature, kind) in [
        ("text_editor", Kind::Editor),
        ("line_edit", Kind::LineEdit),
        ("apply_patch", Kind::Patch),
        ("search_replace", Kind::Blocks),
    ] {
        if allowed.has(feature) {
            options.extend([kind, kind]);
        }
    }
    Ok(*u.choose(&options)?)
}

/// A symlink made or swapped: `link.txt` made to point at one of the files when there is
/// none, else turned to another file (with one file only: to a name where nothing is, or a
/// second link is made to the file).
fn link_step(
    u: &mut Unstructured<'_>,
    now: &mut Vec<(String, String)>,
    guess: &[Guess],
) -> Result<GenStep> {
    let current = now.iter().position(|(l, _)| l == "link.txt");
    let (path, target) = match current {
        None => ("link.txt", guess[u.choose_index(guess.len())?].path.clone()),
        Some(i) => match guess.iter().find(|g| g.path != now[i].1) {
            Some(other) => ("link.txt", other.path.clone()),
            // With one file, the link is turned to a name where nothing is (the file was
            // moved away), or a second link is made to the file.
            None if u.ratio(1, 2)? => ("link.txt", "moved.txt".to_string()),
            None => ("link2.txt", now[i].1.clone()),
        },
    };
    now.retain(|(l, _)| l != path);
    now.push((path.to_string(), target.clone()));
    Ok(GenStep::Link {
        path: path.to_string(),
        target,
    })
}

/// The path a call names: the file, or a symlink to it.
fn call_path(u: &mut Unstructured<'_>, links: &[(String, String)], file: &str) -> Result<String> {
    for (link, target) in links {
        if target == file && u.ratio(1, 2)? {
            return Ok(link.clone());
        }
    }
    Ok(file.to_string())
}

/// A Read of the whole file, or of a window when partial reads are declared (never the
/// first Read: a window there makes every later edit a `partial_read` refusal).
fn read_step(u: &mut Unstructured<'_>, allowed: &Allowed, path: &str) -> Result<GenStep> {
    let window = if allowed.has("partial_read") && u.ratio(1, 3)? {
        Some((u.int_in_range(1..=4)?, u.int_in_range(1..=3)?))
    } else {
        None
    };
    Ok(GenStep::Read {
        path: path.to_string(),
        window,
    })
}

#[cfg(test)]
#[path = "gen_tests.rs"]
mod tests;
