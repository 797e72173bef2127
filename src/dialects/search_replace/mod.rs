//! Aider's SEARCH/REPLACE blocks (SPEC §15.6, BLOCK-1..8): the parser and the
//! whitespace-flexible fallback, both pure.
//!
//! A model using this format answers in prose with blocks like
//!
//! ````text
//! src/app.py
//! ```python
//! <<<<<<< SEARCH
//! def greet():
//!     print("hi")
//! =======
//! def greet():
//!     print("hello")
//! >>>>>>> REPLACE
//! ```
//! ````
//!
//! [`parse`] reads the whole reply into [`Block`]s (file, SEARCH text, REPLACE text, line) or
//! a [`ParseError`] that names the line and what was expected there. Applying a block goes
//! through the core's exact matching; only when its SEARCH text does not occur at all does
//! [`find_flexible`] look for it with different indentation, and it answers with a single
//! [`Replacement`](crate::text::Replacement), with every candidate when there is more than one,
//! or with nothing — never with a guess.
//!
//! The parts:
//!
//! - `markers.rs` — what one line is: a marker, a fence, a file name;
//! - `parse.rs` — the reply's blocks, or the first error;
//! - `flex.rs` — the flexible-indentation search and the re-indented replacement.
//!
//! ```
//! use editref::dialects::search_replace::{find_flexible, parse, Flex};
//!
//! let reply = "Indent it:\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n";
//! let blocks = parse(reply)?;
//! assert_eq!(blocks[0].path, "src/a.py");
//! assert_eq!(blocks[0].search, "x = 1\n");
//!
//! // The file has the line indented; the exact text does not occur, the flexible one does.
//! let view = "def f():\n    x = 1\n";
//! let Flex::Unique(r) = find_flexible(view, &blocks[0].search, &blocks[0].replace) else {
//!     panic!("one place matches")
//! };
//! assert_eq!((r.start, r.end, r.text.as_str()), (9, 19, "    x = 2\n"));
//! # Ok::<(), editref::dialects::search_replace::ParseError>(())
//! ```

mod apply;
mod flex;
mod lines;
mod markers;
mod parse;
#[cfg(test)]
mod tests;

pub use apply::run;
pub use flex::{find_flexible, Flex};
pub use parse::{parse, Block, ParseError};
