//! What the seed writers share: an edit of a corpus call as sent, and the seeds gathered per
//! target, each structured one checked to decode back to the value it was written from.

use arbitrary::{Arbitrary, Unstructured};
use std::collections::BTreeMap;

/// One edit of a corpus call: its strings as sent.
#[derive(Clone)]
pub(crate) struct CallEdit {
    pub(crate) old: String,
    pub(crate) new: String,
    pub(crate) replace_all: bool,
}

/// Decodes a structured seed again and checks it is the value it was written from.
fn verified<T: for<'a> Arbitrary<'a> + PartialEq + std::fmt::Debug>(
    value: &T,
    bytes: &[u8],
) -> Result<(), String> {
    let back = T::arbitrary_take_rest(Unstructured::new(bytes)).map_err(|e| e.to_string())?;
    if &back == value {
        Ok(())
    } else {
        Err(format!("seed decodes to {back:?}, not {value:?}"))
    }
}

/// The seeds written so far, per target, and the seeds that did not decode back.
#[derive(Default)]
pub(crate) struct Seeds {
    pub(crate) by_target: BTreeMap<&'static str, Vec<(String, Vec<u8>)>>,
    pub(crate) errors: Vec<String>,
}

impl Seeds {
    pub(crate) fn add(&mut self, target: &'static str, name: String, bytes: Vec<u8>) {
        self.by_target
            .entry(target)
            .or_default()
            .push((name, bytes));
    }

    pub(crate) fn add_checked<T: for<'a> Arbitrary<'a> + PartialEq + std::fmt::Debug>(
        &mut self,
        target: &'static str,
        name: String,
        value: &T,
        bytes: Option<Vec<u8>>,
    ) {
        let Some(bytes) = bytes else { return };
        match verified(value, &bytes) {
            Ok(()) => self.add(target, name, bytes),
            Err(e) => self.errors.push(format!("{target}/{name}: {e}")),
        }
    }
}
