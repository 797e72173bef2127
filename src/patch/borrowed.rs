//! The hunks of a [`Patch`] borrowed from its diff text, serialized exactly as [`Hunk`] is: the
//! way a result is written as JSON without making a string of every line first.

use super::hunk::{HunkAt, Patch};
#[cfg(doc)]
use super::Hunk;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// One hunk of a [`Patch`], its lines read from the diff text when serialized.
///
/// Serializes to the same JSON as the owned [`Hunk`] (the same fields, in the same order), so
/// a result holding a patch of 100,000 lines is written without 100,000 strings.
#[derive(Debug, Clone, Copy)]
pub struct HunkRef<'a> {
    /// 1-based first old line.
    pub old_start: usize,
    /// Old lines in the hunk (context and removed).
    pub old_lines: usize,
    /// 1-based first new line.
    pub new_start: usize,
    /// New lines in the hunk (context and added).
    pub new_lines: usize,
    /// The hunk's lines in the diff, each ended by `\n`.
    body: &'a str,
}

impl HunkRef<'_> {
    /// The lines, without their line breaks.
    pub fn lines(&self) -> impl Iterator<Item = &str> + '_ {
        let mut start = 0;
        memchr::memchr_iter(b'\n', self.body.as_bytes()).map(move |nl| {
            let line = &self.body[start..nl];
            start = nl + 1;
            line
        })
    }
}

impl Patch {
    /// The hunks, borrowed from the diff text (see [`HunkRef`]).
    pub fn hunk_refs(&self) -> impl ExactSizeIterator<Item = HunkRef<'_>> + '_ {
        self.hunks.iter().map(|h: &HunkAt| HunkRef {
            old_start: h.old_start,
            old_lines: h.old_lines,
            new_start: h.new_start,
            new_lines: h.new_lines,
            body: &self.diff[h.lines.clone()],
        })
    }
}

/// The lines of a hunk as a JSON array, streamed.
struct Lines<'a>(&'a HunkRef<'a>);

impl Serialize for Lines<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.lines())
    }
}

impl Serialize for HunkRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("oldStart", &self.old_start)?;
        map.serialize_entry("oldLines", &self.old_lines)?;
        map.serialize_entry("newStart", &self.new_start)?;
        map.serialize_entry("newLines", &self.new_lines)?;
        map.serialize_entry("lines", &Lines(self))?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use crate::patch::Patch;
    use crate::text::Replacement;

    #[test]
    fn edit_6_a_borrowed_hunk_is_the_owned_hunk_in_json() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\nq";
        let reps = [
            Replacement {
                start: 2,
                end: 3,
                text: "B\nB2".into(),
            },
            Replacement {
                start: 30,
                end: 33,
                text: String::new(),
            },
        ];
        let patch = Patch::new("f", old, &reps);
        let owned = patch.hunks();
        assert_eq!(owned.len(), 2, "two hunks apart");
        let borrowed: Vec<_> = patch.hunk_refs().collect();
        assert_eq!(
            serde_json::to_string(&borrowed).unwrap(),
            serde_json::to_string(&owned).unwrap()
        );
        for (b, o) in borrowed.iter().zip(&owned) {
            assert_eq!(b.lines().collect::<Vec<_>>(), o.lines);
        }
    }
}
