//! The pool's adapters: the first one's handshake decides what the run declares, and every
//! other worker shakes hands too before it gets a case.
//!
//! An adapter learns things in its handshake that its calls depend on — the `--mcp` adapter
//! learns the server's tool names there, and maps the corpus's names onto them. A worker that
//! skipped it would send unmapped names, and a case would pass or fail depending on which
//! worker ran it. So each worker handshakes, and must declare what the first did: a server that
//! answers differently from one start to the next cannot be certified as one implementation.
//! The first handshake gets a second, patient chance when it times out ([`patient_hello`]).

use super::summary::count;
use crate::adapter::{Adapter, AdapterError, Hello};
use crate::run::{BoxedAdapter, RERUN_PATIENCE};

/// The run's first handshake, and when it times out a second one with every limit
/// [`RERUN_PATIENCE`] times longer: a tool's first start is its slowest (cold caches, a
/// package runner fetching the tool, a busy machine), and a run that stops at the handshake
/// says nothing about the tool's answers. Only a second timeout is the adapter's failure.
pub(super) fn patient_hello(adapter: &mut dyn Adapter) -> Result<Hello, AdapterError> {
    match adapter.hello() {
        Err(AdapterError::Timeout(_)) => {
            adapter.set_patience(RERUN_PATIENCE);
            let again = adapter.hello();
            adapter.set_patience(1);
            again
        }
        done => done,
    }
}

/// `first` (already handshaken, declaring `hello`) and up to `wanted - 1` more made by `make`,
/// each handshaken. A worker that cannot be made or whose handshake fails is noted (unless
/// `quiet`) and the run goes on with fewer; one that declares something else than `hello` is
/// an error, since the run's cases were selected by what the first declared.
pub(super) fn workers(
    first: BoxedAdapter,
    hello: &Hello,
    wanted: usize,
    quiet: bool,
    mut make: impl FnMut() -> Result<BoxedAdapter, String>,
) -> Result<Vec<BoxedAdapter>, String> {
    let mut adapters = vec![first];
    while adapters.len() < wanted {
        let made = make().and_then(|mut a| match a.hello() {
            Ok(h) => Ok((a, h)),
            Err(e) => Err(format!("the adapter failed the handshake: {e}")),
        });
        match made {
            Ok((a, h)) if h == *hello => adapters.push(a),
            Ok((_, h)) => {
                return Err(format!(
                    "the adapter declared {} in one handshake and {} in another; an \
                     implementation must declare the same every time it starts",
                    describe(hello),
                    describe(&h)
                ))
            }
            Err(e) => {
                if !quiet {
                    eprintln!(
                        "editref conform: note: running {} at once: {e}",
                        count(adapters.len(), "case", "cases")
                    );
                }
                break;
            }
        }
    }
    Ok(adapters)
}

fn describe(h: &Hello) -> String {
    format!(
        "{} {} with features [{}] and read format {}",
        h.name,
        h.version,
        h.features.join(", "),
        h.read_format.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::Reply;
    use crate::check::ReadFormat;
    use serde_json::{json, Value};
    use std::path::Path;

    /// An adapter that, like the `--mcp` one, can only call well after its handshake.
    struct NeedsHello {
        features: Vec<String>,
        shook: bool,
    }

    impl NeedsHello {
        fn boxed(features: &[&str]) -> BoxedAdapter {
            Box::new(NeedsHello {
                features: features.iter().map(|f| f.to_string()).collect(),
                shook: false,
            })
        }
    }

    impl Adapter for NeedsHello {
        fn hello(&mut self) -> Result<Hello, AdapterError> {
            self.shook = true;
            Ok(hello(&self.features))
        }
        fn case_start(&mut self, _id: &str, _sandbox: &Path) -> Result<(), AdapterError> {
            Ok(())
        }
        fn call(&mut self, _seq: u64, _tool: &str, _input: &Value) -> Result<Reply, AdapterError> {
            Ok(Reply::Ok(json!({ "handshaken": self.shook })))
        }
        fn case_end(&mut self) -> Result<(), AdapterError> {
            Ok(())
        }
    }

    fn hello(features: &[String]) -> Hello {
        Hello {
            name: "needs-hello".into(),
            version: "1".into(),
            features: features.to_vec(),
            read_format: ReadFormat::Tab,
        }
    }

    #[test]
    fn every_worker_shakes_hands_before_its_first_case() {
        let mut first = NeedsHello::boxed(&["edit"]);
        let declared = first.hello().unwrap();
        let adapters = workers(first, &declared, 4, true, || {
            Ok(NeedsHello::boxed(&["edit"]))
        })
        .unwrap();
        assert_eq!(adapters.len(), 4);
        for mut a in adapters {
            assert_eq!(
                a.call(1, "Edit", &json!({})).unwrap(),
                Reply::Ok(json!({"handshaken": true}))
            );
        }
    }

    #[test]
    fn a_worker_declaring_something_else_stops_the_run() {
        let mut first = NeedsHello::boxed(&["edit", "text_editor"]);
        let declared = first.hello().unwrap();
        let mut n = 0;
        let e = workers(first, &declared, 3, true, || {
            n += 1;
            Ok(NeedsHello::boxed(if n == 1 {
                &["edit", "text_editor"]
            } else {
                &["edit"]
            }))
        })
        .err()
        .expect("a different declaration is refused");
        assert!(
            e.contains("[edit, text_editor]") && e.contains("[edit]"),
            "{e}"
        );
    }

    #[test]
    fn a_worker_that_cannot_be_made_leaves_fewer_workers() {
        let mut first = NeedsHello::boxed(&["edit"]);
        let declared = first.hello().unwrap();
        let mut n = 0;
        let adapters = workers(first, &declared, 5, true, || {
            n += 1;
            if n < 3 {
                Ok(NeedsHello::boxed(&["edit"]))
            } else {
                Err("no more".into())
            }
        })
        .unwrap();
        assert_eq!(adapters.len(), 3);
    }
}
