//! Fuzz-target logic: one function per cargo-fuzz target, each checking invariants of the spec
//! rather than only the absence of crashes.
//!
//! The targets live in this crate (`editref-fuzzing`, a member of the workspace), not in
//! `fuzz/`, so that plain `cargo test` replays every committed regression input through the very
//! same functions (no libFuzzer, no nightly), while the cargo-fuzz targets in `fuzz/fuzz_targets/`
//! are thin wrappers that call them. The crate is separate from the library and uses only
//! editref's public API, so nothing of the fuzz kit ships in what agents embed. Each function
//! returns `Err(description)` when an invariant is violated; the cargo-fuzz targets turn that
//! into a crash, the regression test into a failure.
//!
//! | target | input | what must hold |
//! |---|---|---|
//! | [`document_roundtrip`] | raw file bytes | TEXT-1/2/7: accepted bytes re-encode to themselves; the LF view and its offset map agree with a naive CRLF → LF scan |
//! | [`edit_vs_model`] | [`EditCase`] | TEXT-1..7, EDIT-2, MATCH-1..5, MULTI-1..4: library and model decode alike; the engine equals a naive model; untouched bytes stay; an edit and its inverse restore the file |
//! | [`repair`] | [`RepairCase`] | REPAIR-2/3/4/6: no repair when the text occurs (MATCH-1/2); a repaired string really occurs; a repair fires when the spec says it must |
//! | [`quotes`] | [`QuoteCase`] | MATCH-2/4: folding keeps the length in characters and maps offsets back; restyling changes only quote characters, by the spec's rule |
//! | [`atomic_write`] | [`AtomicCase`] | DISK-1/5, SESSION-3: the clean call writes the model's bytes; with a fault at any file-system call the path holds the old or the new bytes, and no temp file survives except after a crash |
//! | [`inputs`] | raw bytes | PATH-4: protocol lines, tool inputs and notebooks never panic and every refusal carries a known code |
//! | [`search_replace_parse`] | [`SearchReplaceCase`] | BLOCK-1..8, PATH-4: any reply parses without panicking, CRLF reads like LF; rendered blocks parse back exactly; the flexible fallback stays in the view and equals a naive model |
//! | [`apply_patch_parse`] | raw bytes (mode byte) | APPLY-1..4, PATH-4: the V4A parser never panics, accepts only well-formed patches, and gives back exactly the operations a model renderer wrote |
//! | [`apply_patch_seek`] | [`SeekCase`] | APPLY-5..9, PATH-4: locating chunks never panics, replacements are sorted, disjoint and on line boundaries, and a single chunk lands where a naive model of the passes puts it |
//! | [`dialect_inputs`] | [`DialectCase`] | EDITOR-1/4/5, LINES-1, ALIAS-1..3/5, D29: the text editor's, LineEdit's, Edit's and Write's JSON readers accept exactly what a model of the spec accepts, as the value it reads, and refuse the rest with `invalid_input` naming a field at fault; a command missing a parameter is refused for it before any file is touched |
//! | [`conform_gen()`] | raw bytes (feature mask, then the generator's choices) | the differential fuzzer's generator: its cases use only declared features, load back from their YAML as the same case, run on the reference without a harness error, pass on the reference when written as a finding; every shrink proposal is smaller and loads |
//!
//! Structured inputs derive [`arbitrary::Arbitrary`] with an explicit byte framing
//! ([`framing`]), so that seeds can be written from the conformance corpus and regression files
//! keep their meaning across refactors; [`hard_parts`] makes most random bytes meaningful cases,
//! and [`depth`] measures how many reach the check that matters.

pub mod depth;
pub mod framing;

mod apply_patch_model;
mod apply_patch_parse;
mod apply_patch_render;
mod apply_patch_seek;
mod atomic;
pub mod conform_gen;
mod dialect_inputs;
mod dialect_model;
mod document;
mod edit;
mod edit_case;
mod edit_checks;
pub mod hard_parts;
mod inputs;
mod model;
mod model_codec;
mod quotes;
mod repair;
mod sandbox;
mod search_replace_model;
mod search_replace_parse;

pub use apply_patch_parse::{
    apply_patch_parse, ModelChunk, ModelLine, ModelOp, PatchModel, PARSE_MODEL, PARSE_OPERATION,
    PARSE_RAW,
};
pub use apply_patch_seek::{apply_patch_seek, SeekCase, SEEK_FREE};
pub use atomic::{atomic_write, AtomicCase, AtomicEnd, AtomicTool, FaultChoice};
pub use conform_gen::conform_gen;
pub use dialect_inputs::{
    dialect_inputs, special, DialectCase, FieldSpec, KeySpec, ValueSpec, COMMAND_NAMES, KEYS,
};
pub use document::document_roundtrip;
pub use edit::{edit_vs_model, EditEnd};
pub use edit_case::{EditCase, EditSpec, OldString};
pub use hard_parts::{FileForm, Perturb};
pub use inputs::{inputs, InputKind};
pub use model_codec::ModelEncoding;
pub use quotes::{quotes, QuoteCase};
pub use repair::{repair, RepairCase, RepairEnd, RepairShape};
pub use search_replace_parse::{search_replace_parse, BlockSpec, SearchReplaceCase};

use arbitrary::{Arbitrary, Unstructured};

/// The names of the fuzz targets, which are also the directory names under `fuzz/regressions/`,
/// `fuzz/seeds/` and `fuzz/corpus/`.
pub const TARGETS: [&str; 11] = [
    "document_roundtrip",
    "edit_vs_model",
    "repair",
    "quotes",
    "atomic_write",
    "inputs",
    "search_replace_parse",
    "apply_patch_parse",
    "apply_patch_seek",
    "dialect_inputs",
    // The differential fuzzer's own generator (editref_conform::fuzz).
    "conform_gen",
];

/// What an invariant check returns: `Err` describes the violated invariant.
pub type Check = Result<(), String>;

/// Runs the named target on raw fuzzer bytes, exactly as its cargo-fuzz target does (structured
/// targets decode the bytes with `arbitrary_take_rest` first). `None` for an unknown name.
///
/// This is what the regression test calls for every file under `fuzz/regressions/<target>/`.
pub fn run(target: &str, data: &[u8]) -> Option<Check> {
    reach(target, data).map(|r| r.map(|_| ()))
}

/// Like [`run`], but says where the input ended ([`depth::Ending`]), so that a corpus can be
/// measured: targets with an outcome enum report its place; the others, whose every decoded
/// input reaches their checks, report `checked`.
pub fn reach(target: &str, data: &[u8]) -> Option<Result<depth::Ending, String>> {
    let checked = |c: Check| c.map(|()| depth::Ending::deep("checked"));
    Some(match target {
        "document_roundtrip" => checked(document_roundtrip(data)),
        "edit_vs_model" => structured(data, |c| edit_vs_model(c).map(EditEnd::ending)),
        "repair" => structured(data, |c| repair(c).map(RepairEnd::ending)),
        "quotes" => structured(data, |c| checked(quotes(c))),
        "atomic_write" => structured(data, |c| atomic_write(c).map(AtomicEnd::ending)),
        "inputs" => checked(inputs(data)),
        "search_replace_parse" => structured(data, |c| checked(search_replace_parse(c))),
        "apply_patch_parse" => checked(apply_patch_parse(data)),
        "apply_patch_seek" => structured(data, |c| checked(apply_patch_seek(c))),
        "dialect_inputs" => structured(data, dialect_inputs),
        "conform_gen" => checked(conform_gen(data)),
        _ => return None,
    })
}

/// Decodes a structured input the way libfuzzer-sys does; undecodable input is skipped there,
/// so it passes here (ending `undecodable`).
fn structured<'a, T: Arbitrary<'a>>(
    data: &'a [u8],
    check: impl Fn(&T) -> Result<depth::Ending, String>,
) -> Result<depth::Ending, String> {
    match T::arbitrary_take_rest(Unstructured::new(data)) {
        Ok(input) => check(&input),
        Err(_) => Ok(depth::Ending::shallow("undecodable")),
    }
}

/// Fails with a formatted description when `cond` is false.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}
pub(crate) use ensure;

#[cfg(test)]
mod tests {
    use super::*;
    use editref::disk::Fault;

    fn round_trip<T: for<'a> Arbitrary<'a> + PartialEq + std::fmt::Debug>(
        value: &T,
        bytes: Option<Vec<u8>>,
    ) {
        let bytes = bytes.expect("encodable");
        let back = T::arbitrary_take_rest(Unstructured::new(&bytes)).expect("decodable");
        assert_eq!(&back, value);
    }

    /// libFuzzer's typed targets skip inputs shorter than the type's least size: every framed
    /// input must claim none, and decode from nothing at all.
    #[test]
    fn structured_inputs_need_no_least_length_and_decode_from_nothing() {
        fn none_needed<'a, T: Arbitrary<'a> + std::fmt::Debug>() {
            assert_eq!(T::size_hint(0).0, 0, "{}", std::any::type_name::<T>());
            assert!(
                T::arbitrary_take_rest(Unstructured::new(&[])).is_ok(),
                "{}",
                std::any::type_name::<T>()
            );
        }
        none_needed::<EditCase>();
        none_needed::<AtomicCase>();
        none_needed::<RepairCase>();
        none_needed::<QuoteCase>();
        none_needed::<SearchReplaceCase>();
        none_needed::<BlockSpec>();
        none_needed::<SeekCase>();
        none_needed::<DialectCase>();
    }

    #[test]
    fn seeds_decode_to_the_cases_they_were_written_from() {
        let drawn = |how| EditSpec {
            replace_all: false,
            guided: how != Perturb::AsCut,
            old: OldString::Drawn {
                start: 300,
                len: 7,
                how,
            },
            new: "y".into(),
        };
        for n in 1..=16 {
            let mut edits = vec![EditSpec {
                replace_all: true,
                guided: false,
                old: OldString::Given {
                    text: "a".into(),
                    expanded: n % 2 == 0,
                },
                new: "\u{201C}x\u{201D}".into(),
            }];
            for k in 1..n {
                edits.push(drawn(
                    [
                        Perturb::Unique,
                        Perturb::AsCut,
                        Perturb::Curled,
                        Perturb::Straightened,
                        Perturb::EndingsFlipped,
                        Perturb::Planted,
                    ][k % 6],
                ));
            }
            let edit = EditCase {
                form: FileForm::Utf16Be,
                body: b"a\r\nb\xFF".to_vec(),
                edits,
            };
            round_trip(&edit, edit.to_bytes());
        }
        let repair = RepairCase {
            shape: RepairShape::SanitizedPrefixed,
            param: 0x1d,
            start: 3,
            len: 300,
            shift: 65535,
            body: b"<name>x</name>\n".to_vec(),
            old: "<n>x</n>".into(),
            new: "1\ty".into(),
        };
        round_trip(&repair, repair.to_bytes());
        let quotes = QuoteCase {
            text: "it's".into(),
            new: "\"a\"".into(),
            actual: "\u{2018}b\u{2019}".into(),
        };
        round_trip(&quotes, quotes.to_bytes());
        for fault in [Fault::Errno(libc::EXDEV), Fault::ShortWrite, Fault::Crash] {
            let atomic = AtomicCase {
                tool: AtomicTool::WriteCreate,
                fault: FaultChoice(fault),
                position: 513,
                flags: 7,
                form: FileForm::Windows1252,
                body: vec![0, 1, 2],
                edit: drawn(Perturb::Curled),
            };
            round_trip(&atomic, atomic.to_bytes());
        }
        let sr = SearchReplaceCase {
            raw: "a.py\n<<<<<<< SEARCH\nx\n".into(),
            eol: 2,
            blocks: vec![BlockSpec {
                style: 0xBEEF,
                path: "src/é.rs".into(),
                search: "  x\n".into(),
                replace: String::new(),
                prose: "Here:\n".into(),
            }],
            tail: "done".into(),
            view: "a\n  x\n".into(),
            plant: 11,
            at: 300,
            search: "x\n".into(),
            replace: "y\n".into(),
        };
        round_trip(&sr, sr.to_bytes());
        let dialect = DialectCase {
            tool: 6,
            fields: vec![
                FieldSpec {
                    key: KeySpec::Pool(0),
                    value: ValueSpec::Command(3),
                },
                FieldSpec {
                    key: KeySpec::Free("pä,th".into()),
                    value: ValueSpec::Text("x\u{0}y".into()),
                },
                FieldSpec {
                    key: KeySpec::Pool(254),
                    value: ValueSpec::Range(-1, i16::MAX),
                },
                FieldSpec {
                    key: KeySpec::Pool(6),
                    value: ValueSpec::Neg(65535),
                },
                FieldSpec {
                    key: KeySpec::Pool(13),
                    value: ValueSpec::Bool(true),
                },
                FieldSpec {
                    key: KeySpec::Pool(7),
                    value: ValueSpec::Null,
                },
                FieldSpec {
                    key: KeySpec::Pool(9),
                    value: ValueSpec::Special(200),
                },
                FieldSpec {
                    key: KeySpec::Pool(10),
                    value: ValueSpec::Float(3),
                },
            ],
        };
        round_trip(&dialect, dialect.to_bytes());
    }

    #[test]
    fn every_target_name_runs_and_unknown_names_do_not() {
        for t in TARGETS {
            assert_eq!(run(t, b""), Some(Ok(())), "{t} on empty input");
        }
        assert_eq!(run("nope", b""), None);
    }
}
