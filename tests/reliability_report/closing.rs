//! The end of the document: the known limits and how to run the suite.

use std::fmt::Write as _;

/// "Known limits" and "Running it".
pub(crate) fn limits(w: &mut String) {
    let _ = writeln!(w, "\n## Known limits\n");
    let _ = writeln!(
        w,
        "- The last check before a rename (the target is still the file that was read) and the \
         rename itself are two system calls; a program replacing the file in exactly that gap is \
         not detected. A directory of the path swapped for a symlink in that gap no longer leads \
         outside the root: with a root, the rename is made on the directory's handle, opened \
         beneath the root (D30). Without a root, nothing confines the path.\n\
         - A file rewritten in place with its size kept and its mtime restored to the nanosecond \
         between the checks and the write cannot be told from an untouched one without reading \
         it again.\n\
         - A temp file is removed as an orphan only by a later edit in its own directory, only \
         when its writer's PID is no live process and nobody holds its lock, and only where \
         the directory is small enough to list on every write (`st_size` up to 256 KiB, \
         several thousand entries); in a larger directory, or when the PID has been reused, \
         an orphan stays until removed by hand.\n\
         - Power cuts are explored in a model (section 2), not on hardware: the states checked \
         are those the model permits for the calls editref makes through its file-system seam. \
         A disk or file system that does not keep the promises of fsync (a volatile write \
         cache that acknowledges a flush it has not done) is outside the model.\n\
         - A batch of several files (`apply_patch`) is all or none for failures and kills, not \
         for power cuts: no file system makes several renames durable as one, so a cut during \
         its commit can leave some files old and others new, each whole (BATCH-2).\n\
         - EACCES on the directory is injected through the seam: the suite runs as any user, \
         and root ignores directory permissions.\n\
         - Linux only (device nodes, `/proc`, `wait4`)."
    );
    let _ = writeln!(w, "\n## Running it\n");
    let _ = writeln!(
        w,
        "```sh\n\
         scripts/reliability --check --dev   # what CI runs: CI counts (150 kills, …) on the test build\n\
         scripts/reliability                 # CI counts, optimised build, renders this file\n\
         scripts/reliability --kills 5000    # more kills; see --help for every option\n\
         scripts/reliability --load-secs 60  # the MCP load run for 60 s\n\
         cargo test --test 'reliability_*'   # quick smoke counts, no rendering\n\
         ```\n\n\
         The counts of the run above are in its `counts` row, and the command that made it in \
         its `command` row. A failing run can be replayed exactly with `--seed N` (the seed of \
         the run is shown above)."
    );
}
