//! The typed form of one corpus case, after loading and validation.
//!
//! Everything here is already checked: a `Case` can be run without further validation, so the
//! runner never has to report a malformed case halfway through a run. The raw YAML shapes and
//! the checks that turn them into these types live in [`crate::load`].

pub use crate::class::Class;
use serde_json::{Map, Value};
use std::fmt;

/// The closed feature vocabulary (defined by the protocol both sides share).
pub use editref_protocol::FEATURES;

/// The tools a `call` step may name.
pub use editref_protocol::TOOLS;

/// How much a case counts for certification (conformance spec §3).
///
/// The order is meaningful: certification at a level needs every case of that level *and
/// below* to pass, and `--level` selects a level and everything below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// The safety contract every edit tool must meet.
    Core,
    /// The full behaviour spec.
    Extended,
    /// Places where reasonable tools differ: reported, never a failure.
    ImplementationDefined,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 3] = [Level::Core, Level::Extended, Level::ImplementationDefined];

    /// The spelling used in case files, reports and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Core => "core",
            Level::Extended => "extended",
            Level::ImplementationDefined => "implementation-defined",
        }
    }

    /// Parses the spelling of [`Level::as_str`].
    pub fn parse(s: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// Whether failures at this level count (implementation-defined cases never do).
    pub fn counts(self) -> bool {
        self != Level::ImplementationDefined
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a directory entry is (or must be): the content source of a file form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// A regular file with exactly these bytes (text already encoded).
    Bytes(Vec<u8>),
    /// A symbolic link with this target, written verbatim.
    Symlink(String),
    /// A hard link to another path of the same case (a case path, relative to the sandbox).
    Hardlink(String),
    /// A directory.
    Dir,
    /// A named pipe.
    Fifo,
}

/// A file form of `files` or `modify`: what to create, byte-exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileForm {
    /// The entry itself.
    pub content: Content,
    /// Permission bits to set after creation, if given.
    pub mode: Option<u32>,
}

/// The final-state checks of one `expect_files` entry.
///
/// Several checks may be combined (a file form plus `mode`, `is_symlink` plus a file form); the
/// loader has already rejected contradictory combinations such as `absent` with anything else.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExpectFile {
    /// The exact entry required (bytes are read through symlinks).
    pub content: Option<Content>,
    /// The entry must equal what the harness last knew of it.
    pub unchanged: bool,
    /// Nothing may exist at the path.
    pub absent: bool,
    /// Required permission bits (of the final target when the path is a link).
    pub mode: Option<u32>,
    /// The path must still be a symbolic link.
    pub is_symlink: bool,
    /// The file must have been replaced by a new inode (DISK-1's rename), not rewritten in
    /// place: an in-place rewrite is what leaves a half-written file when the writer dies.
    pub replaced: bool,
    /// The class the case names for these checks (`class:`), instead of data.
    pub class: Option<Class>,
}

/// What a call must produce.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// Success; when `output` is given, the output must contain it (subset match).
    Ok {
        /// The subset the output must contain.
        output: Option<Value>,
    },
    /// Failure with this code; every listed structured field must match.
    Error {
        /// The error code of spec §12.
        code: String,
        /// Structured fields (`count`, `lines`, `edit_index`, …), subset-matched.
        fields: Map<String, Value>,
    },
}

/// One step of a case, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A tool call sent to the implementation.
    Call {
        /// Tool name, one of [`TOOLS`].
        tool: String,
        /// The input, sent as written apart from the path rule.
        input: Value,
        /// The required result; `None` means "must succeed".
        expect: Option<Expect>,
        /// The class the case names for this expectation (`class:` in `expect`), instead of
        /// the one derived from what it checks.
        class: Option<Class>,
    },
    /// Another program rewrites the file.
    Modify {
        /// Case path.
        path: String,
        /// New content (and optional mode).
        form: FileForm,
        /// Restore the exact previous mtime instead of moving it 2 s forward.
        keep_mtime: bool,
    },
    /// The mtime moves, the content stays.
    Touch {
        /// Case path.
        path: String,
        /// Shift in nanoseconds (negative moves it back).
        shift_ns: i128,
    },
    /// The permission bits change.
    Chmod {
        /// Case path.
        path: String,
        /// New permission bits.
        mode: u32,
    },
    /// The entry is deleted.
    Remove {
        /// Case path.
        path: String,
    },
    /// The entry becomes a symbolic link (made, or swapped in for what was there).
    Link {
        /// Case path of the link.
        path: String,
        /// What it points to, as written into the link.
        target: String,
    },
}

impl Step {
    /// A short name for reports ("Edit", "modify", …).
    pub fn label(&self) -> String {
        match self {
            Step::Call { tool, .. } => tool.clone(),
            Step::Modify { path, .. } => format!("modify {path}"),
            Step::Touch { path, .. } => format!("touch {path}"),
            Step::Chmod { path, .. } => format!("chmod {path}"),
            Step::Remove { path } => format!("remove {path}"),
            Step::Link { path, .. } => format!("link {path}"),
        }
    }
}

/// One validated corpus case.
#[derive(Debug, Clone)]
pub struct Case {
    /// `<area>/<name>`, equal to the file's place in the corpus; stable forever.
    pub id: String,
    /// The part of the id before the slash.
    pub area: String,
    /// One line saying what the case shows.
    pub title: String,
    /// Rule IDs of the behaviour spec.
    pub spec: Vec<String>,
    /// Certification level.
    pub level: Level,
    /// Features the implementation must declare for the case to run.
    pub requires: Vec<String>,
    /// Free-form labels.
    pub tags: Vec<String>,
    /// Corpus version that introduced the case.
    pub since: String,
    /// The sandbox before the first step, sorted by path.
    pub files: Vec<(String, FileForm)>,
    /// Calls and harness actions.
    pub steps: Vec<Step>,
    /// Final-state checks, sorted by path.
    pub expect_files: Vec<(String, ExpectFile)>,
    /// Extra entries at the end are tolerated.
    pub allow_residue: bool,
    /// The per-call timeout for this case, when the corpus sets one: cases whose subject is a
    /// call a careless tool never returns from (a FIFO, a device) say how long a careful one
    /// takes at most, so a hang costs that long instead of the run's whole `--timeout`.
    pub timeout: Option<std::time::Duration>,
    /// Free text for readers.
    pub notes: Option<String>,
    /// Where the case came from (a path, or `embedded:<path>`), for messages.
    pub source: String,
    /// sha256 of the case file's bytes, hex (the manifest records it).
    pub sha256: String,
}
