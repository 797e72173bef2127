//! `apply_patch_parse`: the V4A parser (APPLY-1..4).
//!
//! Framing: the first byte picks a mode (modulo 3); the rest is its input.
//! - raw: the rest is patch text (lossy UTF-8). `parse` must not panic; what it accepts must be
//!   well formed (no empty path, no path twice, no update without chunks, line numbers inside the
//!   text and in order) and must read back the same after a canonical re-rendering.
//! - operation: a kind byte (create, update, delete, anything else), the path and the diff as
//!   texts. `parse_operation` must not panic, and what it accepts must be well formed.
//! - model: a [`PatchModel`] (see its framing). Its operations, cleaned by the spec's rules, are
//!   rendered into patch text by `apply_patch_render.rs` — written from the spec, sharing no code
//!   with the parser — in one of many accepted styles (CRLF, heredocs, padding, blank lines, an
//!   omitted first `@@`, bare empty context lines), and `parse` must give back exactly those
//!   operations with the line numbers the renderer wrote them at. Each operation rendered in the
//!   Responses API form must come back through `parse_operation` too.

use crate::framing;
use crate::{ensure, Check};
use arbitrary::Unstructured;
use editref::dialects::apply_patch::{parse, parse_operation, FileOp, Patch};
use std::collections::HashSet;

use crate::apply_patch_model::*;
pub use crate::apply_patch_model::{
    ModelChunk, ModelLine, ModelOp, PatchModel, PARSE_MODEL, PARSE_OPERATION, PARSE_RAW,
};
use crate::apply_patch_render::*;

/// Runs the mode the first byte selects.
pub fn apply_patch_parse(data: &[u8]) -> Check {
    let Some((&first, rest)) = data.split_first() else {
        return Ok(());
    };
    match first % 3 {
        0 => raw(&String::from_utf8_lossy(rest)),
        1 => operation(rest),
        _ => {
            let mut u = Unstructured::new(rest);
            match PatchModel::read(&mut u) {
                Ok(model) => check_model(&model),
                Err(_) => Ok(()),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The checks

/// What every accepted operation satisfies (APPLY-1..4). Paths come from a line of the text
/// (`in_text`), or as given to `parse_operation`, where any character may be in them.
fn well_formed_op(op: &FileOp, text_lines: usize, in_text: bool) -> Check {
    let path_ok = |p: &str| !p.is_empty() && p == p.trim() && !(in_text && p.contains('\n'));
    ensure!(path_ok(op.path()), "bad path {:?}", op.path());
    ensure!(
        op.line() <= text_lines,
        "operation line {} past the text",
        op.line()
    );
    let line_ok = |l: &str| !l.contains('\n');
    match op {
        FileOp::Add { lines, .. } => {
            ensure!(
                lines.iter().all(|l| line_ok(l)),
                "added line with a line break"
            );
        }
        FileOp::Delete { .. } => {}
        FileOp::Update {
            move_to,
            chunks,
            line,
            ..
        } => {
            if let Some(m) = move_to {
                ensure!(path_ok(m) && m != op.path(), "bad move destination {m:?}");
            }
            ensure!(!chunks.is_empty(), "update without chunks");
            let mut last = *line;
            for c in chunks {
                ensure!(
                    !c.old.is_empty() || !c.new.is_empty(),
                    "chunk at {} without lines",
                    c.line
                );
                ensure!(
                    c.anchors
                        .iter()
                        .all(|a| !a.trim().is_empty() && !a.contains('\n')),
                    "blank anchor {:?}",
                    c.anchors
                );
                ensure!(
                    c.old.iter().chain(&c.new).all(|l| line_ok(l)),
                    "chunk line with a line break"
                );
                ensure!(
                    c.line > last && c.line <= text_lines,
                    "chunk line {} out of order or past the text",
                    c.line
                );
                last = c.line;
            }
        }
    }
    Ok(())
}

/// How many lines the parser counts in a text (a final line break starts no new line).
fn count_lines(text: &str) -> usize {
    let n = text.split('\n').count();
    if text.ends_with('\n') || text.is_empty() {
        n - 1
    } else {
        n
    }
}

fn raw(text: &str) -> Check {
    let Ok(patch) = parse(text) else {
        return Ok(());
    };
    ensure!(!patch.ops.is_empty(), "accepted a patch without operations");
    let total = count_lines(text);
    let mut seen = HashSet::new();
    let mut last = 0;
    for op in &patch.ops {
        well_formed_op(op, total, true)?;
        ensure!(op.line() > last, "operations out of order");
        last = op.line();
        ensure!(
            seen.insert(op.path().to_string()),
            "path {:?} twice",
            op.path()
        );
        if let FileOp::Update {
            move_to: Some(m), ..
        } = op
        {
            ensure!(
                seen.insert(m.clone()),
                "move onto {m:?}, which is named twice"
            );
        }
    }
    // A canonical rendering reads back as the same operations. CRLF: a line may end with a CR
    // of its own (`x\r\r\n`), which only a CRLF break keeps.
    let model = PatchModel {
        style: CRLF,
        ops: patch.ops.iter().map(as_model).collect(),
    };
    let (again, _) = render(&model);
    match parse(&again) {
        Ok(Patch { ops }) => ensure!(
            without_lines(&ops) == without_lines(&patch.ops),
            "re-rendered patch reads differently:\n{again}\n{ops:#?}\nvs\n{:#?}",
            patch.ops
        ),
        Err(e) => return Err(format!("re-rendered patch refused: {e}\n{again}")),
    }
    Ok(())
}

fn operation(data: &[u8]) -> Check {
    let mut u = Unstructured::new(data);
    let (Ok(kind), Ok(path), Ok(diff)) = (
        framing::byte(&mut u),
        framing::text(&mut u),
        framing::text(&mut u),
    ) else {
        return Ok(());
    };
    let kind = ["create_file", "update_file", "delete_file", "move_file"][usize::from(kind) % 4];
    let Ok(op) = parse_operation(kind, &path, &diff) else {
        return Ok(());
    };
    ensure!(kind != "move_file", "accepted an unknown operation type");
    ensure!(op.line() == 0, "operation line {} is not 0", op.line());
    well_formed_op(&op, count_lines(&diff), false)?;
    let want = match kind {
        "create_file" => matches!(op, FileOp::Add { .. }),
        "update_file" => matches!(op, FileOp::Update { move_to: None, .. }),
        _ => matches!(op, FileOp::Delete { .. }),
    };
    ensure!(want, "{kind} parsed as {op:?}");
    let (_, _, again, _) = render_operation(&as_model(&op), CRLF);
    match parse_operation(kind, op.path(), &again) {
        Ok(back) => ensure!(
            without_lines(std::slice::from_ref(&back)) == without_lines(std::slice::from_ref(&op)),
            "re-rendered {kind} reads differently: {back:?} vs {op:?}"
        ),
        Err(e) => return Err(format!("re-rendered {kind} refused: {e}\n{again}")),
    }
    Ok(())
}

/// Renders the cleaned model and parses it back (APPLY-1, -3, -4).
pub fn check_model(model: &PatchModel) -> Check {
    let model = sanitized(model);
    let (text, expected) = render(&model);
    match parse(&text) {
        Ok(patch) => {
            ensure!(
                !expected.is_empty(),
                "accepted a patch without operations:\n{text}"
            );
            ensure!(
                patch.ops == expected,
                "parsed\n{text}\nas\n{:#?}\nexpected\n{expected:#?}",
                patch.ops
            );
        }
        Err(e) => {
            ensure!(
                expected.is_empty(),
                "refused a valid patch: {e}\n{text}\nexpected {expected:#?}"
            );
        }
    }
    for op in &model.ops {
        let (kind, path, diff, want) = render_operation(op, model.style);
        match parse_operation(kind, &path, &diff) {
            Ok(got) => ensure!(
                got == want,
                "{kind} {path:?} {diff:?} parsed as {got:#?}, expected {want:#?}"
            ),
            Err(e) => return Err(format!("{kind} {path:?} {diff:?} refused: {e}")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::Writer;

    #[test]
    fn ranges_as_the_spec_describes_them() {
        for r in [
            "-1 +1",
            "-12,7 +12,8 @@",
            " -1,2 +3 @@ fn main()",
            "-1 +1  ",
        ] {
            assert!(is_range(r), "{r}");
        }
        for r in [
            "-1  +1",
            "-1,+1",
            "-a +1",
            "-1 +1x",
            "-1, +2",
            "1 +1",
            "-1 +1 x @@",
        ] {
            assert!(!is_range(r), "{r}");
        }
    }

    #[test]
    fn a_model_seed_decodes_to_its_model_and_passes() {
        let model = PatchModel {
            style: 0xff,
            ops: vec![
                ModelOp::Add {
                    path: " a.txt ".into(),
                    lines: vec!["x".into(), "".into()],
                },
                ModelOp::Update {
                    path: "b".into(),
                    move_to: Some("c".into()),
                    chunks: vec![
                        ModelChunk {
                            anchors: vec![],
                            lines: vec![
                                ModelLine::Context("".into()),
                                ModelLine::Removed("y".into()),
                                ModelLine::Added("z".into()),
                            ],
                            end_of_file: false,
                            bare: true,
                        },
                        ModelChunk {
                            anchors: vec!["fn f()".into(), "-1 +1 @@".into()],
                            lines: vec![ModelLine::Added("w".into())],
                            end_of_file: true,
                            bare: false,
                        },
                    ],
                },
                ModelOp::Delete {
                    path: "a.txt".into(),
                },
            ],
        };
        let bytes = model.to_bytes().unwrap();
        let back = PatchModel::read(&mut Unstructured::new(&bytes[1..])).unwrap();
        assert_eq!(back, model);
        assert_eq!(apply_patch_parse(&bytes), Ok(()));
        for style in 0..=255u8 {
            check_model(&PatchModel {
                style,
                ..model.clone()
            })
            .unwrap();
        }
    }

    #[test]
    fn raw_and_operation_modes_accept_what_they_should() {
        let text = "*** Begin Patch\n*** Update File: a\n@@ x\n-1\n+2\n*** End Patch\n";
        assert_eq!(
            apply_patch_parse(&[&[PARSE_RAW][..], text.as_bytes()].concat()),
            Ok(())
        );
        let mut w = Writer::new();
        w.byte(PARSE_OPERATION).byte(1);
        w.text("a").unwrap();
        w.text("@@\n-x\n+y\n").unwrap();
        assert_eq!(apply_patch_parse(&w.finish()), Ok(()));
    }
}
