//! The corpus manifest (`conformance/manifest.json`): for every case its sha256, level,
//! required features and `since`, under the corpus version.
//!
//! It is generated, never hand-edited: `editref conform manifest` writes it and
//! `--check` fails when it no longer matches the case files, so a case whose bytes change
//! without a new id is caught in review. Reports record the sha256 of this document, which pins
//! exactly which corpus an implementation was certified against.

use crate::load::{sha256_hex, Corpus};
use serde_json::{json, Map, Value};

/// The manifest document for a corpus (deterministic: cases sorted by id).
pub fn build(corpus: &Corpus) -> Value {
    let mut cases = Map::new();
    for c in &corpus.cases {
        cases.insert(
            c.id.clone(),
            json!({
                "sha256": c.sha256,
                "level": c.level.as_str(),
                "requires": c.requires,
                "since": c.since,
            }),
        );
    }
    json!({
        "corpus_version": corpus.version,
        "protocol": editref::protocol::PROTOCOL,
        "cases": cases,
    })
}

/// The manifest as written to disk: pretty JSON with a final newline.
pub fn render(corpus: &Corpus) -> String {
    let mut s = serde_json::to_string_pretty(&build(corpus)).unwrap_or_default();
    s.push('\n');
    s
}

/// sha256 of [`render`], recorded in reports.
pub fn hash(corpus: &Corpus) -> String {
    sha256_hex(render(corpus).as_bytes())
}

/// What differs between a manifest on disk and the corpus: lines like `changed: edit/foo`.
pub fn differences(on_disk: &str, corpus: &Corpus) -> Vec<String> {
    let fresh = build(corpus);
    let old: Value = match serde_json::from_str(on_disk) {
        Ok(v) => v,
        Err(e) => return vec![format!("manifest.json is not valid JSON: {e}")],
    };
    let mut out = Vec::new();
    if old.get("corpus_version") != fresh.get("corpus_version") {
        out.push(format!(
            "corpus_version: {} in the manifest, {} in VERSION",
            old.get("corpus_version").unwrap_or(&Value::Null),
            fresh["corpus_version"]
        ));
    }
    let empty = Map::new();
    let old_cases = old
        .get("cases")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let new_cases = fresh["cases"].as_object().unwrap_or(&empty);
    for (id, v) in new_cases {
        match old_cases.get(id) {
            None => out.push(format!("added: {id}")),
            Some(o) if o != v => out.push(format!("changed: {id}")),
            _ => {}
        }
    }
    for id in old_cases.keys() {
        if !new_cases.contains_key(id) {
            out.push(format!("removed: {id}"));
        }
    }
    if out.is_empty() && on_disk != render(corpus) {
        out.push("formatting differs (regenerate it)".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::parse_case;

    #[test]
    fn manifest_tracks_case_bytes() {
        let text = "id: a/b\ntitle: t\nspec: [X-1]\nlevel: core\nrequires: [edit]\nsince: \"0.1.0\"\nfiles: {}\nsteps:\n  - remove: {path: x}\n";
        let case = parse_case("f", "a/b.yaml", text.as_bytes()).unwrap();
        let mut corpus = Corpus {
            origin: "t".into(),
            base: None,
            version: "0.1.0".into(),
            cases: vec![case.clone()],
            broken: vec![],
        };
        let m = render(&corpus);
        assert!(m.contains("\"a/b\""));
        assert!(differences(&m, &corpus).is_empty());
        let changed = parse_case("f", "a/b.yaml", format!("{text}# edited\n").as_bytes()).unwrap();
        corpus.cases = vec![changed];
        assert_eq!(differences(&m, &corpus), vec!["changed: a/b"]);
        corpus.cases = vec![];
        assert_eq!(differences(&m, &corpus), vec!["removed: a/b"]);
        corpus.version = "0.2.0".into();
        assert_eq!(differences(&m, &corpus).len(), 2);
    }
}
