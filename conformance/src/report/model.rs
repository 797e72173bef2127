//! The report data model: one run's [`Report`] and its parts, which are also the schema of
//! `report.json`.
//!
//! Every output format is derived from these values, and `report.json` is them serialised as
//! they are, so the serde attributes here are the JSON format. Keeping the model in a file of
//! its own keeps that format in one place: [`SCHEMA_VERSION`] is bumped when a field changes
//! meaning, and `matrix` reads back only reports of the version it knows. Fields that only add
//! (the per-class results, `read_format`) do not bump it: older readers skip them, and this
//! harness reads reports without them.

use crate::run::{CaseRecord, ClassResult, Status};
use crate::surface::Surface;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The report format version; bumped when a field changes meaning. Version 2 added the status
/// `differs` (an implementation-defined case answered otherwise, which version 1 recorded as
/// `fail`), the case details of records that did not pass (`about`), and how a run was cut
/// short; [`Report::read`] still reads version 1.
pub const SCHEMA_VERSION: u32 = 2;

/// The oldest report version this harness reads.
pub const OLDEST_SCHEMA_VERSION: u32 = 1;

/// The harness that produced a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HarnessInfo {
    /// Always `editref conform`.
    pub name: String,
    /// editref's version.
    pub version: String,
    /// Adapter protocol version.
    pub protocol: u64,
}

/// The corpus a report was made against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusInfo {
    /// `VERSION`.
    pub version: String,
    /// sha256 of the manifest generated from the corpus that ran.
    pub manifest_sha256: String,
    /// The directory, or `embedded`.
    pub origin: String,
    /// Cases in the corpus (selected or not).
    pub cases: usize,
}

/// The implementation under test, as its `hello` described it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImplInfo {
    /// Name.
    pub name: String,
    /// Version.
    pub version: String,
    /// Declared features.
    pub features: Vec<String>,
    /// The `--impl` command, or `builtin`.
    pub command: String,
    /// How its Read numbers lines (`tab`, `arrow` or `plain`), as declared: Read content was
    /// compared in that form. Reports older than the field were all `tab`.
    #[serde(default = "tab")]
    pub read_format: String,
    /// The name given with `--label`, which reports and matrices show instead of name and
    /// version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The read format of a report that does not name one.
fn tab() -> String {
    "tab".into()
}

/// Where the run happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// `std::env::consts::OS`.
    pub os: String,
    /// `std::env::consts::ARCH`.
    pub arch: String,
    /// `std::env::consts::FAMILY`.
    pub family: String,
}

impl Platform {
    /// The platform this binary runs on.
    pub fn current() -> Platform {
        Platform {
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            family: std::env::consts::FAMILY.into(),
        }
    }
}

/// What part of the corpus ran.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Selection {
    /// `--only` patterns.
    #[serde(default)]
    pub only: Vec<String>,
    /// `--level`.
    #[serde(default)]
    pub level: Option<String>,
    /// `--expectations` file.
    #[serde(default)]
    pub expectations: Option<String>,
    /// Per-call timeout in seconds.
    #[serde(default)]
    pub timeout_s: f64,
    /// `--rerun-failed`: the report whose failing cases were run again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun_failed: Option<String>,
    /// `--require`: the gates that decide the exit status (`core`, `data:core`, …), comma
    /// separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require: Option<String>,
}

/// Certification reached by the run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Certification {
    /// Every core case passed.
    pub core: bool,
    /// Every core and extended case passed.
    pub extended: bool,
    /// The highest level reached.
    pub highest: Option<String>,
    /// Why a level could not be claimed, when the run was partial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How an earlier report was judged again under newer rules (`editref conform rejudge`): by
/// which harness and corpus, and what the evidence it kept could not settle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Rejudged {
    /// The harness that judged it again (`editref conform 0.1.0`).
    pub by: String,
    /// The corpus version whose rules it was judged by (the cases themselves are those of the
    /// run, as `corpus` names them).
    pub rules: String,
    /// Cases whose verdict changed.
    pub changed: usize,
    /// What could not be judged again from the evidence kept, one line per case: those keep
    /// the class they had.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsettled: Vec<String>,
}

/// The canonical record of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The harness.
    pub harness: HarnessInfo,
    /// The corpus.
    pub corpus: CorpusInfo,
    /// The implementation.
    pub implementation: ImplInfo,
    /// The verdict in one line, for the tool surface it declared, as every format leads with it
    /// ([`Report::headline`]); absent from reports made before it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub verdict: String,
    /// The tools the implementation offers and does not: the surface its verdict is for.
    /// Absent from older reports; [`Report::surface`] then reads it from the features.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<Surface>,
    /// Certification.
    pub certification: Certification,
    /// Results per failure class, data first: counts per level and certification of each
    /// class apart. Absent from reports made before classes, whose failures have no classes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<ClassResult>,
    /// When the report was judged again under newer rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejudged: Option<Rejudged>,
    /// The platform.
    pub platform: Platform,
    /// Start, RFC 3339 UTC.
    pub started: String,
    /// Wall time of the run.
    pub duration_ms: u64,
    /// Selection options.
    pub selection: Selection,
    /// Counts per status.
    pub totals: BTreeMap<Status, usize>,
    /// Why the run ended before every selected case ran (`--fail-fast`), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_early: Option<String>,
    /// One record per case, by id.
    pub cases: Vec<CaseRecord>,
}

impl Report {
    /// Reads a `report.json` of any version this harness knows. A version-1 report's
    /// implementation-defined `fail`s are read as the `differs` they meant.
    pub fn read(path: &std::path::Path) -> Result<Report, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut report: Report = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not a report.json: {e}", path.display()))?;
        if !(OLDEST_SCHEMA_VERSION..=SCHEMA_VERSION).contains(&report.schema_version) {
            return Err(format!(
                "{} has report schema {}, this harness reads {OLDEST_SCHEMA_VERSION} to {SCHEMA_VERSION}",
                path.display(),
                report.schema_version
            ));
        }
        if report.schema_version == 1 {
            for c in &mut report.cases {
                if c.status == Status::Fail
                    && c.level() == Some(crate::case::Level::ImplementationDefined)
                {
                    c.status = Status::Differs;
                }
            }
            report.totals = crate::run::totals(&report.cases);
        }
        Ok(report)
    }

    /// The tool surface the verdict is for: as recorded, or read from the declared features.
    pub fn surface(&self) -> Surface {
        self.surface
            .clone()
            .unwrap_or_else(|| Surface::of(&self.implementation.features))
    }

    /// Whether the report records failure classes (made by a harness that has them): without
    /// them a failing case says nothing about which class failed.
    pub fn has_classes(&self) -> bool {
        !self.classes.is_empty()
    }

    /// `name version` of the implementation, for headings and matrix columns.
    pub fn label(&self) -> String {
        match &self.implementation.label {
            Some(label) => label.clone(),
            None => format!(
                "{} {}",
                self.implementation.name, self.implementation.version
            ),
        }
    }
}
