//! # editref
//!
//! The reference implementation of the file tools coding agents use to change code — Read, Edit,
//! MultiEdit, Write and NotebookEdit — built so that an edit never corrupts a file.
//!
//! A call flows top to bottom through small modules: input repair ([`repair`]) → validation
//! ([`session`], path rules) → decoding ([`text`]) → matching ([`matching`]) → the pure edit
//! engine ([`engine`]) → the patch ([`patch`]) → the atomic write ([`disk`]). The pure part does
//! no I/O, which is what makes it fuzzable and benchmarkable by instruction count; every
//! file-system call goes through the [`disk::Fs`] seam, which is what makes faults injectable.
//!
//! ```no_run
//! use editref::{Config, Session};
//! use serde_json::json;
//!
//! let session = Session::new(Config::new("/path/to/project").with_root("/path/to/project"));
//! session.call("Read", &json!({"file_path": "src/main.rs"})).unwrap();
//! let out = session.call("Edit", &json!({
//!     "file_path": "src/main.rs",
//!     "old_string": "let x = 1;",
//!     "new_string": "let x = 2;",
//! }));
//! match out {
//!     Ok(result) => println!("{}", result["diff"].as_str().unwrap_or("")),
//!     Err(e) => eprintln!("refused ({}): {}", e.code, e.message),
//! }
//! ```
//!
//! Every refusal is a [`ToolError`] with a stable [`Code`] and leaves the disk exactly as it was.

pub mod disk;
pub mod engine;
pub mod error;
pub mod matching;
pub mod patch;
pub mod protocol;
pub mod repair;
pub mod session;
pub mod session_file;
pub mod text;
pub mod tools;

pub use error::{Code, ToolError, ToolResult};
pub use session::{Config, LineFormat, Session};

/// The version of this implementation, reported in the protocol's hello.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
