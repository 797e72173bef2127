//! # editref
//!
//! The reference implementation of the file tools coding agents use to change code — Read, Edit,
//! MultiEdit, Write and NotebookEdit — built so that an edit never corrupts a file.
//!
//! A call flows one way down through small modules: the entry ([`Session::call`] for JSON, the
//! typed methods such as [`Session::edit`]) → the tool ([`tools`]) → input repair ([`repair`])
//! → matching ([`matching`]) → the pure edit engine ([`engine`]) → the patch ([`patch`]) → the
//! atomic write ([`disk`]), with the session's read state and path rules ([`session`]) and the
//! document model ([`text`]) below the tools. The pure part does no I/O, which is what makes
//! it fuzzable and benchmarkable by instruction count; every file-system call goes through the
//! [`disk::Fs`] seam, which is what makes faults injectable. `ARCHITECTURE.md` draws the map.
//!
//! Each tool has a typed input and output in [`api`], with JSON Schemas derived from the same
//! types:
//!
//! ```
//! use editref::api::{EditInput, ReadInput};
//! use editref::{Code, Config, Session};
//!
//! # let dir = tempfile::tempdir()?;
//! # let project = dir.path();
//! std::fs::write(project.join("main.rs"), "let x = 1;\r\nlet y = 2;\r\n")?;
//! let session = Session::new(Config::new(project).with_root(project));
//!
//! // Edits need a full read first (SESSION-1)…
//! let refused = session.edit(EditInput::new("main.rs", "let x = 1;", "let x = 3;"));
//! assert_eq!(refused.unwrap_err().code, Code::NotRead);
//! session.read(ReadInput::new("main.rs"))?;
//!
//! // …then replace exactly one occurrence; the CRLF line endings stay as they were.
//! let out = session.edit(EditInput::new("main.rs", "let x = 1;", "let x = 3;"))?;
//! assert_eq!(out.replacements, 1);
//! assert_eq!(std::fs::read(project.join("main.rs"))?, b"let x = 3;\r\nlet y = 2;\r\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! JSON callers use [`Session::call`], which parses into the same types:
//!
//! ```no_run
//! # use editref::{Config, Session};
//! # use serde_json::json;
//! let session = Session::new(Config::new("/path/to/project").with_root("/path/to/project"));
//! session.call("Read", &json!({"file_path": "src/main.rs"}))?;
//! let result = session.call("Edit", &json!({
//!     "file_path": "src/main.rs",
//!     "old_string": "let x = 1;",
//!     "new_string": "let x = 2;",
//! }))?;
//! println!("{}", result["diff"].as_str().unwrap_or(""));
//! # Ok::<(), editref::ToolError>(())
//! ```
//!
//! Every refusal is a [`ToolError`] with a stable [`Code`] and leaves the disk exactly as it was.

pub mod api;
mod call;
pub mod dialects;
pub mod disk;
pub mod engine;
pub mod error;
pub mod matching;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod patch;
pub mod protocol;
pub mod repair;
pub mod session;
pub mod text;
pub mod tools;
pub mod undo;

pub use call::{CallOutput, ALL_TOOLS, TOOLS};
pub use error::{Code, ToolError, ToolResult};
pub use session::{Config, LineFormat, Session};

/// The version of this implementation, reported in the protocol's hello.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
