//! How a change is shown in a result: `structuredPatch` (hunks, as agents already parse them)
//! and `diff` (the same hunks as unified-diff text), both from one [`Patch`].
//!
//! The typed result keeps the [`Patch`] itself and spells the JSON only when it is serialized,
//! straight from the diff text: neither a caller that shows the diff (the human CLI) nor one
//! that writes the JSON pays for a string per diff line, which for a replace_all of 100,000
//! hits costs more than the edit.

use crate::patch::{Hunk, Patch};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use std::borrow::Cow;

/// The change an edit made (or would make, on a dry run), as hunks of the file's lines.
#[derive(Debug)]
pub struct StructuredPatch(pub Patch);

impl StructuredPatch {
    /// The hunks as unified-diff text, with `---`/`+++` headers.
    pub fn diff(&self) -> &str {
        self.0.diff()
    }

    /// The patch itself.
    pub fn patch(&self) -> &Patch {
        &self.0
    }
}

/// The hunks are written from the diff text itself ([`crate::patch::HunkRef`]): the JSON of
/// the owned [`Hunk`]s, without a string per line in between.
impl Serialize for StructuredPatch {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let hunks = self.0.hunk_refs();
        let mut seq = serializer.serialize_seq(Some(hunks.len()))?;
        for h in hunks {
            seq.serialize_element(&h)?;
        }
        seq.end()
    }
}

impl JsonSchema for StructuredPatch {
    fn schema_name() -> Cow<'static, str> {
        "StructuredPatch".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = generator.subschema_for::<Vec<Hunk>>();
        schema.insert(
            "description".into(),
            "Hunks of the change: line numbers are 1-based; each line starts with ' ' (context), '-' (removed) or '+' (added).".into(),
        );
        schema
    }
}

/// `structuredPatch` and `diff` together, as Edit and MultiEdit report them: one [`Patch`],
/// spelled as two fields of the result (it is flattened into the result object).
#[derive(Debug)]
pub struct Change(pub StructuredPatch);

impl Change {
    /// The change of `patch`.
    pub fn new(patch: Patch) -> Change {
        Change(StructuredPatch(patch))
    }

    /// The hunks as unified-diff text.
    pub fn diff(&self) -> &str {
        self.0.diff()
    }

    /// The patch itself.
    pub fn patch(&self) -> &Patch {
        self.0.patch()
    }
}

impl Serialize for Change {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("structuredPatch", &self.0)?;
        map.serialize_entry("diff", self.diff())?;
        map.end()
    }
}

impl JsonSchema for Change {
    fn schema_name() -> Cow<'static, str> {
        "Change".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let hunks = generator.subschema_for::<StructuredPatch>();
        json_schema!({
            "type": "object",
            "properties": {
                "structuredPatch": hunks,
                "diff": {"type": "string", "description": "The change as unified-diff text."}
            },
            "required": ["structuredPatch", "diff"]
        })
    }
}
