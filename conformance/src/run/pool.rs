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
//!
//! A case that times out is not reported yet: a call may miss its limit only because the
//! machine was busy — with the other workers' cases, or with anything else. Once every worker
//! is done, such cases run again one after the other, alone, on one adapter, with patient
//! limits ([`rerun_after_timeout`]); their second record is the one the caller sees. So a
//! tool is `timeout` only when it did not answer even then, whatever the load.

use super::{rerun_after_timeout, run_case_with, CaseOptions, CaseRecord, Status};
use crate::adapter::Adapter;
use crate::case::Case;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

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

/// A case that timed out in the parallel run: its index in the case list and its first record.
type Deferred = (usize, CaseRecord);

/// What the workers share: the next case to take, whether to stop, the cases to run again.
struct Shared {
    next: AtomicUsize,
    stop: AtomicBool,
    deferred: Mutex<Vec<Deferred>>,
}

impl Pool<'_> {
    /// Runs `cases` with one worker per adapter in `adapters` (the caller makes at most
    /// [`Pool::jobs`] of them, the greeted one first). Every finished record goes to `seen`
    /// (on this thread), which may change it (apply the expectations, say) and may stop the
    /// run. Cases that timed out run again alone at the end (see the module documentation).
    /// Returns the records of every case that ran, in the order they were seen.
    pub fn run(
        &self,
        cases: &[&Case],
        adapters: Vec<BoxedAdapter>,
        mut seen: impl FnMut(&mut CaseRecord) -> Flow,
    ) -> Vec<CaseRecord> {
        let shared = Shared {
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            deferred: Mutex::new(Vec::new()),
        };
        let (tx, rx) = mpsc::channel::<(CaseRecord, mpsc::Sender<()>)>();
        let mut records = Vec::with_capacity(cases.len());
        let mut left: Vec<BoxedAdapter> = Vec::new();
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for (n, adapter) in adapters.into_iter().take(self.jobs.max(1)).enumerate() {
                let tx = tx.clone();
                let shared = &shared;
                // A worker that cannot be started leaves its cases to the others.
                if let Ok(h) = std::thread::Builder::new()
                    .name(format!("editref-conform-worker-{n}"))
                    .spawn_scoped(scope, move || self.work(cases, adapter, shared, &tx))
                {
                    handles.push(h);
                }
            }
            drop(tx);
            for (mut rec, ack) in rx {
                if seen(&mut rec) == Flow::Stop {
                    shared.stop.store(true, Ordering::SeqCst);
                }
                records.push(rec);
                // The worker takes its next case only now, after the decision.
                let _ = ack.send(());
            }
            left = handles.into_iter().filter_map(|h| h.join().ok()).collect();
        });
        let mut deferred = shared
            .deferred
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        deferred.sort_by_key(|(i, _)| *i);
        let mut spare = left.into_iter();
        // One adapter stays for the cases to run again; the others end now, side by side.
        let mut adapter = if deferred.is_empty() {
            None
        } else {
            spare.next()
        };
        std::thread::scope(|scope| {
            for mut other in spare {
                // Should no thread start, the adapter is dropped, which ends it just as well.
                let _ = std::thread::Builder::new()
                    .name("editref-conform-shutdown".into())
                    .spawn_scoped(scope, move || other.shutdown());
            }
        });
        for (i, first) in deferred {
            let stopped = shared.stop.load(Ordering::SeqCst);
            let mut rec = match (&mut adapter, cases.get(i)) {
                (Some(a), Some(case)) if !stopped => {
                    rerun_after_timeout(a.as_mut(), self.features, case, self.options, &first)
                }
                _ => {
                    let mut rec = first;
                    rec.reason = format!("{} (not run again: the run stopped)", rec.reason);
                    rec
                }
            };
            if seen(&mut rec) == Flow::Stop {
                shared.stop.store(true, Ordering::SeqCst);
            }
            records.push(rec);
        }
        if let Some(mut a) = adapter {
            a.shutdown();
        }
        if !shared.stop.load(Ordering::SeqCst) {
            // Only when no worker could be started at all are cases left over.
            for case in cases.iter().skip(shared.next.load(Ordering::SeqCst)) {
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
    /// seen it (so a stop is seen before the next case starts), or set it aside to run again
    /// when it timed out; until no case is left or the run stops. The adapter is handed back at
    /// the end, for the cases to run again.
    fn work(
        &self,
        cases: &[&Case],
        mut adapter: BoxedAdapter,
        shared: &Shared,
        tx: &mpsc::Sender<(CaseRecord, mpsc::Sender<()>)>,
    ) -> BoxedAdapter {
        let (ack_tx, ack_rx) = mpsc::channel();
        while !shared.stop.load(Ordering::SeqCst) {
            let i = shared.next.fetch_add(1, Ordering::SeqCst);
            let Some(case) = cases.get(i) else {
                break;
            };
            let rec = run_case_with(adapter.as_mut(), self.features, case, self.options);
            if rec.status == Status::Timeout {
                if let Ok(mut d) = shared.deferred.lock() {
                    d.push((i, rec));
                    continue;
                }
            }
            if tx.send((rec, ack_tx.clone())).is_err() || ack_rx.recv().is_err() {
                break;
            }
        }
        adapter
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

    /// An adapter standing for a tool on a busy machine: in a case named `slow` it misses the
    /// normal limit and answers under patience; in one named `hang` it never answers. It
    /// counts the cases in progress across all workers, to see that re-runs run alone.
    struct Busy {
        case: String,
        patience: u32,
        running: std::sync::Arc<AtomicUsize>,
        alone_when_patient: std::sync::Arc<AtomicBool>,
    }

    impl Adapter for Busy {
        fn hello(&mut self) -> Result<crate::adapter::Hello, crate::adapter::AdapterError> {
            Echo.hello()
        }
        fn case_start(
            &mut self,
            id: &str,
            _sandbox: &std::path::Path,
        ) -> Result<(), crate::adapter::AdapterError> {
            self.case = id.to_string();
            let others = self.running.fetch_add(1, Ordering::SeqCst);
            if self.patience > 1 && others > 0 {
                self.alone_when_patient.store(false, Ordering::SeqCst);
            }
            Ok(())
        }
        fn call(
            &mut self,
            _seq: u64,
            _tool: &str,
            _input: &serde_json::Value,
        ) -> Result<crate::adapter::Reply, crate::adapter::AdapterError> {
            let slow = self.case.ends_with("slow") && self.patience == 1;
            if slow || self.case.ends_with("hang") {
                // The case ends here: the runner stops at a timeout, with no case_end.
                self.running.fetch_sub(1, Ordering::SeqCst);
                return Err(crate::adapter::AdapterError::Timeout(format!(
                    "no reply at patience {}",
                    self.patience
                )));
            }
            Ok(crate::adapter::Reply::Ok(serde_json::json!({})))
        }
        fn case_end(&mut self) -> Result<(), crate::adapter::AdapterError> {
            self.running.fetch_sub(1, Ordering::SeqCst);
            Ok(())
        }
        fn set_patience(&mut self, factor: u32) {
            self.patience = factor;
        }
    }

    /// A case that timed out beside others runs again alone, with patience: a tool that
    /// answers then is judged on its answer, one that does not is `timeout` (the harness's
    /// timeouts do not turn a busy machine into a verdict on the tool).
    #[test]
    fn a_case_that_timed_out_runs_again_alone_and_patiently() {
        let ids = [
            "edit/a",
            "edit/b-slow",
            "edit/c",
            "edit/d-hang",
            "edit/e",
            "edit/f-slow",
            "edit/g",
        ];
        let cases: Vec<Case> = ids.iter().map(|id| case(id)).collect();
        let refs: Vec<&Case> = cases.iter().collect();
        let features = vec!["edit".to_string()];
        let options = CaseOptions::default();
        let running = std::sync::Arc::new(AtomicUsize::new(0));
        let alone = std::sync::Arc::new(AtomicBool::new(true));
        let adapters: Vec<BoxedAdapter> = (0..3)
            .map(|_| {
                Box::new(Busy {
                    case: String::new(),
                    patience: 1,
                    running: running.clone(),
                    alone_when_patient: alone.clone(),
                }) as BoxedAdapter
            })
            .collect();
        let pool = Pool {
            jobs: 3,
            features: &features,
            options: &options,
        };
        let mut order = Vec::new();
        let records = pool.run(&refs, adapters, |r| {
            order.push(r.id.clone());
            Flow::Continue
        });
        assert_eq!(records.len(), ids.len());
        for r in &records {
            match r.id.as_str() {
                "edit/b-slow" | "edit/f-slow" => {
                    assert_eq!(r.status, Status::Pass, "{r:?}");
                    assert_eq!(r.rerun.as_deref(), Some("step 1: no reply at patience 1"));
                }
                "edit/d-hang" => {
                    assert_eq!(r.status, Status::Timeout, "{r:?}");
                    assert!(r.reason.starts_with("step 1: no reply at patience 5 (run again alone with 5× the limits after the first attempt's step 1: no reply at patience 1)"), "{}", r.reason);
                    assert!(r.rerun.is_some());
                }
                _ => assert_eq!((r.status, &r.rerun), (Status::Pass, &None), "{r:?}"),
            }
        }
        assert!(
            alone.load(Ordering::SeqCst),
            "a re-run started while another case was running"
        );
        assert_eq!(
            order[order.len() - 3..],
            ["edit/b-slow", "edit/d-hang", "edit/f-slow"],
            "the cases to run again come last, in corpus order"
        );
    }

    #[test]
    fn after_a_stop_a_case_that_timed_out_is_not_run_again() {
        let cases = [case("edit/a-hang"), case("edit/b")];
        let refs: Vec<&Case> = cases.iter().collect();
        let features = vec!["edit".to_string()];
        let options = CaseOptions::default();
        let pool = Pool {
            jobs: 1,
            features: &features,
            options: &options,
        };
        let busy = Box::new(Busy {
            case: String::new(),
            patience: 1,
            running: Default::default(),
            alone_when_patient: Default::default(),
        }) as BoxedAdapter;
        // `edit/b` is seen first (the timeout is set aside) and stops the run.
        let records = pool.run(&refs, vec![busy], |_| Flow::Stop);
        let got: Vec<(&str, Status)> = records.iter().map(|r| (r.id.as_str(), r.status)).collect();
        assert_eq!(
            got,
            [("edit/b", Status::Pass), ("edit/a-hang", Status::Timeout)]
        );
        assert!(records[1].rerun.is_none(), "{:?}", records[1]);
        assert!(
            records[1]
                .reason
                .ends_with("at patience 1 (not run again: the run stopped)"),
            "{}",
            records[1].reason
        );
    }
}
