//! What a run shows while it runs: on a terminal, a progress bar with a line for each case that
//! needs a look as soon as it finishes; elsewhere (a CI log, a pipe), nothing until the end.
//!
//! The two are exclusive so that no case is listed twice: when the lines were shown live, the
//! summary at the end does not repeat them; when they were not, the summary lists them, in id
//! order.

use crate::run::CaseRecord;
use std::io::IsTerminal;

/// The live view of a run.
pub(super) struct Live {
    bar: Option<indicatif::ProgressBar>,
}

impl Live {
    /// A progress bar over `total` cases when stderr is a terminal and the run is not quiet.
    pub(super) fn new(total: usize, quiet: bool) -> Live {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} [{bar:30}] {pos}/{len} {elapsed} {wide_msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        Live { bar }
    }

    /// Whether case lines are shown as cases finish (and so not again in the summary).
    pub(super) fn lists_cases(&self) -> bool {
        self.bar.is_some()
    }

    /// One case finished.
    pub(super) fn finished(&self, rec: &CaseRecord) {
        let Some(bar) = &self.bar else { return };
        if rec.status.needs_attention() {
            bar.println(super::summary::case_line(rec));
        }
        bar.set_message(rec.id.clone());
        bar.inc(1);
    }

    /// The run is over: the bar goes away, the lines stay.
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
