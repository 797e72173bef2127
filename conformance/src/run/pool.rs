//! Running many cases at once (`--jobs N`): a few workers, each with an adapter of its own,
//! take cases from one shared list until it is empty or the run is told to stop.
//!
//! A case already runs in a sandbox of its own and in a fresh session of its adapter, so cases
//! are independent and can run side by side; what must not be shared is the adapter itself (one
//! child process, one MCP client, one in-process worker answers one case at a time). So each
//! worker owns one adapter: the first is the one the run greeted, the others are made on demand
//! by a factory, only once a worker has a case to give it. Records reach the caller on the
//! calling thread, in the order cases finish, so progress output and `--fail-fast` decisions
//! need no locks; the caller sorts the records by id for the reports, which therefore do not
//! depend on the number of workers.

use super::{run_case_with, CaseOptions, CaseRecord, Status};
use crate::adapter::Adapter;
use crate::case::Case;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// An adapter a worker can own on its own thread.
pub type BoxedAdapter = Box<dyn Adapter + Send>;

/// What the caller wants after seeing a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on with the remaining cases.
    Continue,
    /// Start no further case (`--fail-fast`); cases already running finish.
    Stop,
}

/// How a set of cases is run.
pub struct Pool<'a> {
    /// How many cases may run at once (at least 1).
    pub jobs: usize,
    /// The features the greeted adapter declared; cases needing others are skipped.
    pub features: &'a [String],
    /// Sandbox placement and keeping, as for one case.
    pub options: &'a CaseOptions,
}

impl Pool<'_> {
    /// Runs `cases` with one worker per adapter in `adapters` (the caller makes at most
    /// [`Pool::jobs`] of them, the greeted one first). Every finished record goes to `seen`
    /// (on this thread), which may change it (apply the expectations, say) and may stop the
    /// run. Returns the records of every case that ran, in the order they finished.
    pub fn run(
        &self,
        cases: &[&Case],
        adapters: Vec<BoxedAdapter>,
        mut seen: impl FnMut(&mut CaseRecord) -> Flow,
    ) -> Vec<CaseRecord> {
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel::<(CaseRecord, mpsc::Sender<()>)>();
        let mut records = Vec::with_capacity(cases.len());
        std::thread::scope(|scope| {
            for (n, adapter) in adapters.into_iter().take(self.jobs.max(1)).enumerate() {
                let tx = tx.clone();
                let (next, stop) = (&next, &stop);
                // A worker that cannot be started leaves its cases to the others.
                let _ = std::thread::Builder::new()
                    .name(format!("editref-conform-worker-{n}"))
                    .spawn_scoped(scope, move || self.work(cases, adapter, next, stop, &tx));
            }
            drop(tx);
            for (mut rec, ack) in rx {
                if seen(&mut rec) == Flow::Stop {
                    stop.store(true, Ordering::SeqCst);
                }
                records.push(rec);
                // The worker takes its next case only now, after the decision.
                let _ = ack.send(());
            }
        });
        if !stop.load(Ordering::SeqCst) {
            // Only when no worker could be started at all are cases left over.
            for case in cases.iter().skip(next.load(Ordering::SeqCst)) {
                let mut rec = CaseRecord::new(
                    case,
                    Status::HarnessError,
                    "not run: no worker thread could be started",
                );
                let _ = seen(&mut rec);
                records.push(rec);
            }
        }
        records
    }

    /// One worker: take the next case, run it, send its record and wait until the caller has
    /// seen it (so a stop is seen before the next case starts); until no case is left or the
    /// run stops. The adapter is shut down at the end.
    fn work(
        &self,
        cases: &[&Case],
        mut adapter: BoxedAdapter,
        next: &AtomicUsize,
        stop: &AtomicBool,
        tx: &mpsc::Sender<(CaseRecord, mpsc::Sender<()>)>,
    ) {
        let (ack_tx, ack_rx) = mpsc::channel();
        while !stop.load(Ordering::SeqCst) {
            let Some(case) = cases.get(next.fetch_add(1, Ordering::SeqCst)) else {
                break;
            };
            let rec = run_case_with(adapter.as_mut(), self.features, case, self.options);
            if tx.send((rec, ack_tx.clone())).is_err() || ack_rx.recv().is_err() {
                break;
            }
        }
        adapter.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{case, Echo};
    use super::*;

    fn echoes(n: usize) -> Vec<BoxedAdapter> {
        (0..n).map(|_| Box::new(Echo) as BoxedAdapter).collect()
    }

    #[test]
    fn every_case_runs_once_whatever_the_number_of_workers() {
        let cases: Vec<Case> = (0..9).map(|i| case(&format!("edit/c{i}"))).collect();
        let refs: Vec<&Case> = cases.iter().collect();
        let features = vec!["edit".to_string()];
        let options = CaseOptions::default();
        for jobs in [1, 2, 4, 20] {
            let pool = Pool {
                jobs,
                features: &features,
                options: &options,
            };
            let mut ids: Vec<String> = pool
                .run(&refs, echoes(jobs), |_| Flow::Continue)
                .into_iter()
                .map(|r| {
                    assert_eq!(r.status, Status::Pass, "{r:?}");
                    r.id
                })
                .collect();
            ids.sort();
            let want: Vec<String> = cases.iter().map(|c| c.id.clone()).collect();
            assert_eq!(ids, want, "jobs {jobs}");
        }
    }

    #[test]
    fn stop_starts_no_further_case() {
        let cases: Vec<Case> = (0..9).map(|i| case(&format!("edit/c{i}"))).collect();
        let refs: Vec<&Case> = cases.iter().collect();
        let features = vec!["edit".to_string()];
        let options = CaseOptions::default();
        let pool = Pool {
            jobs: 1,
            features: &features,
            options: &options,
        };
        let mut seen = 0;
        let ran = pool.run(&refs, echoes(1), |_| {
            seen += 1;
            Flow::Stop
        });
        assert_eq!(
            (ran.len(), seen),
            (1, 1),
            "one worker, stopped after one record"
        );
        let ran = pool.run(&refs, Vec::new(), |_| Flow::Continue);
        assert_eq!(
            ran.len(),
            9,
            "no worker: every case is reported, none dropped"
        );
        assert!(ran.iter().all(|r| r.status == Status::HarnessError));
    }
}
