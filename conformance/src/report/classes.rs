//! The per-class view every format shares: one line stating certification per class (data
//! first) and the counts per class and level, in the words the Markdown summary, the HTML page
//! and the terminal use alike.
//!
//! A run that is "not certified" because Read numbers lines another way and one that loses
//! data are different news; every report says which, the same way, from the `classes` of
//! [`Report`].

use super::Report;
use crate::case::Level;
use crate::run::ClassResult;

impl Report {
    /// "data: certified core; contract: not certified; presentation: not certified", or `None`
    /// for a report made before classes.
    pub fn classes_line(&self) -> Option<String> {
        if !self.has_classes() {
            return None;
        }
        let parts: Vec<String> = self
            .classes
            .iter()
            .map(|c| match &c.certified.highest {
                Some(l) => format!("{}: certified {l}", c.class),
                None => format!("{}: not certified", c.class),
            })
            .collect();
        Some(parts.join("; "))
    }
}

/// The cell of one class at one level: `held/judged`, and how many had no verdict when any.
pub fn counts_cell(c: &ClassResult, level: Level) -> String {
    let Some(n) = c.levels.get(level.as_str()) else {
        return "—".into();
    };
    let judged = n.pass + n.fail;
    if n.unjudged > 0 {
        format!("{}/{judged} ({} unjudged)", n.pass, n.unjudged)
    } else {
        format!("{}/{judged}", n.pass)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::sample;
    use super::*;

    #[test]
    fn classes_are_stated_data_first() {
        let r = sample();
        assert_eq!(
            r.classes_line().as_deref(),
            Some("data: not certified; contract: not certified; presentation: certified core")
        );
        assert_eq!(counts_cell(&r.classes[0], Level::Core), "1/2");
        assert_eq!(
            counts_cell(&r.classes[2], Level::Extended),
            "0/1 (1 unjudged)"
        );
        let mut old = r.clone();
        old.classes.clear();
        assert_eq!(old.classes_line(), None);
    }
}
