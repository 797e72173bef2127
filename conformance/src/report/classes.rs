//! The verdict every format leads with, in the words they share: one line for the run and the
//! tool surface it is for, one per class (data first), the counts per class and level.
//!
//! A run that is "not certified" because Read numbers lines another way, one that refuses
//! what it should do and one that loses data are different news; every report says which, the
//! same way, from the `classes` and the surface of [`Report`]. A tool that damaged nothing but
//! refused what the spec says to do is *safe, not capable*, and every verdict line says so.

use super::Report;
use crate::case::{Class, Level};
use crate::run::ClassResult;

impl Report {
    /// "data: certified core; capability: not certified; …", or `None` for a report made
    /// before classes.
    pub fn classes_line(&self) -> Option<String> {
        if !self.has_classes() {
            return None;
        }
        let parts: Vec<String> = self
            .classes
            .iter()
            .map(|c| format!("{}: {}", c.class, certified_word(c)))
            .collect();
        Some(parts.join("; "))
    }

    /// The class result of `class`, when the report has it.
    pub fn class(&self, class: Class) -> Option<&ClassResult> {
        self.classes.iter().find(|c| c.class == class)
    }

    /// Whether the run damaged no file in any core case it ran, yet did not do what core
    /// asks: data certified at core, capability not.
    pub fn safe_not_capable(&self) -> bool {
        let core = |c: Class| self.class(c).is_some_and(|r| r.certified.core);
        core(Class::Data) && self.class(Class::Capability).is_some() && !core(Class::Capability)
    }

    /// The verdict in one line, as every format leads with it: certification for the tool
    /// surface, "safe, not capable" when that is what the run shows, and each class.
    ///
    /// `Certified core for Read, Edit, Write (not offered: …) — data: certified core; …`
    pub fn headline(&self) -> String {
        let surface = self.surface().describe();
        let mut line = match &self.certification.highest {
            Some(l) => format!("Certified {l} for {surface}"),
            None => format!("Not certified for {surface}"),
        };
        if self.safe_not_capable() {
            line.push_str(": safe, not capable");
        }
        if let Some(classes) = self.classes_line() {
            line.push_str(" — ");
            line.push_str(&classes);
        }
        line
    }

    /// One line per class (data first): `data: certified core for <surface>`, with what the
    /// core cases held; a last line saying "safe, not capable" when that is the verdict.
    pub fn class_verdicts(&self) -> Vec<String> {
        let surface = self.surface().describe();
        let mut lines: Vec<String> = self
            .classes
            .iter()
            .map(|c| {
                let core = c.levels.get(Level::Core.as_str());
                let held = core.map_or(String::new(), |n| {
                    format!(
                        " ({}/{} core cases held it)",
                        n.pass,
                        n.pass + n.fail + n.unjudged
                    )
                });
                format!("{}: {} for {surface}{held}", c.class, certified_word(c))
            })
            .collect();
        if self.safe_not_capable() {
            lines.push(
                "safe, not capable: no file was damaged, and the tool refused what the spec says to do"
                    .into(),
            );
        }
        lines
    }
}

/// "certified core", "certified extended" or "not certified".
fn certified_word(c: &ClassResult) -> String {
    match &c.certified.highest {
        Some(l) => format!("certified {l}"),
        None => "not certified".into(),
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
            Some("data: not certified; capability: certified core; contract: not certified; presentation: certified core")
        );
        assert_eq!(counts_cell(&r.classes[0], Level::Core), "1/2");
        assert_eq!(
            counts_cell(&r.classes[3], Level::Extended),
            "0/1 (1 unjudged)"
        );
        assert!(
            r.headline()
                .starts_with("Not certified for no tool (not offered: Read, "),
            "{}",
            r.headline()
        );
        assert!(r.headline().ends_with("presentation: certified core"));
        let mut old = r.clone();
        old.classes.clear();
        assert_eq!(old.classes_line(), None);
        assert!(!old.headline().contains(" — "));
    }

    #[test]
    fn a_tool_that_damages_nothing_and_does_nothing_is_safe_not_capable() {
        let mut r = sample();
        r.classes[0].certified.core = true;
        r.classes[0].certified.highest = Some("core".into());
        r.classes[1].certified.core = false;
        r.classes[1].certified.highest = None;
        r.implementation.features = vec!["read".into(), "edit".into()];
        assert!(r.safe_not_capable());
        let h = r.headline();
        assert!(
            h.starts_with("Not certified for Read, Edit (not offered: MultiEdit, "),
            "{h}"
        );
        assert!(
            h.contains(": safe, not capable — data: certified core;"),
            "{h}"
        );
        let lines = r.class_verdicts();
        assert_eq!(lines.len(), 5);
        assert!(
            lines[0].starts_with("data: certified core for Read, Edit (not offered:"),
            "{lines:?}"
        );
        assert!(lines[4].starts_with("safe, not capable"), "{lines:?}");
        r.classes[1].certified.core = true;
        assert!(!r.safe_not_capable());
    }
}
