//! Seeds of the apply_patch targets: the corpus's edits turned into V4A chunks, patches,
//! model patches and chunks to locate.

use crate::seeds::CallEdit;
use crate::seeds::Seeds;
use arbitrary::Unstructured;
use editref_fuzzing::{ModelChunk, ModelLine, ModelOp, PatchModel, SeekCase, PARSE_RAW};

/// The whole lines of `text` around the first occurrence of `old`, and the same lines with
/// `new` in its place: an Edit turned into a V4A chunk.
fn whole_lines(text: &str, old: &str, new: &str) -> Option<(String, String)> {
    if old.is_empty() {
        return None;
    }
    let at = text.find(old)?;
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at + old.len()..]
        .find('\n')
        .map_or(text.len(), |i| at + old.len() + i);
    let before = &text[start..at];
    let after = &text[at + old.len()..end];
    let old_lines = format!("{before}{old}{after}");
    let old_lines = old_lines
        .strip_suffix('\n')
        .unwrap_or(&old_lines)
        .to_string();
    let new_lines = format!("{before}{new}{after}");
    let new_lines = new_lines
        .strip_suffix('\n')
        .unwrap_or(&new_lines)
        .to_string();
    Some((old_lines, new_lines))
}

/// Seeds of the apply_patch targets from one Edit/MultiEdit call: the edits as V4A chunks, in
/// patch text, as a model patch, and as chunks to locate in the file.
pub(crate) fn apply_patch_seeds(
    name: &str,
    path: &str,
    text: &str,
    edits: &[CallEdit],
    seeds: &mut Seeds,
) {
    let chunks: Vec<(String, String)> = edits
        .iter()
        .filter_map(|e| whole_lines(text, &e.old, &e.new))
        .collect();
    if chunks.is_empty() {
        return;
    }
    let mut body = String::new();
    for (old, new) in &chunks {
        body.push_str("@@\n");
        for l in old.split('\n') {
            body.push('-');
            body.push_str(l);
            body.push('\n');
        }
        for l in new.split('\n') {
            body.push('+');
            body.push_str(l);
            body.push('\n');
        }
    }
    let patch = format!("*** Begin Patch\n*** Update File: {path}\n{body}*** End Patch\n");
    seeds.add(
        "apply_patch_parse",
        format!("{name}-patch"),
        [&[PARSE_RAW][..], patch.as_bytes()].concat(),
    );
    let model = PatchModel {
        style: (name.len() % 256) as u8,
        ops: vec![ModelOp::Update {
            path: path.to_string(),
            move_to: None,
            chunks: chunks
                .iter()
                .take(4)
                .map(|(old, new)| ModelChunk {
                    anchors: vec![],
                    lines: old
                        .split('\n')
                        .map(|l| ModelLine::Removed(l.to_string()))
                        .chain(new.split('\n').map(|l| ModelLine::Added(l.to_string())))
                        .take(8)
                        .collect(),
                    end_of_file: false,
                    bare: false,
                })
                .collect(),
        }],
    };
    if let Some(bytes) = model.to_bytes() {
        match PatchModel::read(&mut Unstructured::new(&bytes[1..])) {
            Ok(back) if back == model => {
                seeds.add("apply_patch_parse", format!("{name}-model"), bytes)
            }
            _ => seeds.errors.push(format!(
                "apply_patch_parse/{name}-model: does not decode to its model"
            )),
        }
    }
    let (old, new) = &chunks[0];
    let planted = SeekCase {
        mode: 0,
        at: 0,
        file: text.to_string(),
        old: old.clone(),
        new: new.clone(),
    };
    seeds.add_checked(
        "apply_patch_seek",
        format!("{name}-model"),
        &planted,
        planted.to_bytes(),
    );
    let free = SeekCase {
        mode: editref_fuzzing::SEEK_FREE,
        at: 0,
        file: text.to_string(),
        old: body,
        new: String::new(),
    };
    seeds.add_checked(
        "apply_patch_seek",
        format!("{name}-free"),
        &free,
        free.to_bytes(),
    );
}
