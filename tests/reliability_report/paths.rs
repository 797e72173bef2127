//! Section 5: hostile paths and the live adversary.

use crate::records::Records;
use crate::thousands;
use std::fmt::Write as _;

/// Section 5: hostile paths, then the live adversary swapping a directory for a symlink.
pub(crate) fn paths(w: &mut String, r: &Records) {
    // 5. Paths.
    let _ = writeln!(
        w,
        "\n## 5. Hostile paths (PATH-1, PATH-2, PATH-3, DISK-2, DISK-3, READ-5)\n"
    );
    let _ = writeln!(
        w,
        "**Promise.** With a root configured, nothing outside it is read or written, whatever \
         the path: `..`, absolute paths, symlinks pointing outside directly, through a chain or \
         through a symlinked parent directory, and a parent directory swapped for a symlink \
         between the checks and the write. Hard-linked files are refused (`hard_link`), FIFOs, \
         sockets and devices are refused without ever blocking (`blocked_path`, \
         `not_regular_file`), NUL bytes and empty paths are `invalid_path`, over-long names and \
         paths are refused with a code, and names that are not UTF-8 work where they can be \
         named.\n"
    );
    let _ = writeln!(
        w,
        "**Test** (`tests/reliability_paths/`). Every tool (Read, Edit, Edit creating, \
         MultiEdit, Write, NotebookEdit) is aimed at every hostile path in a sandbox holding a \
         root and an outside directory; after each call the whole sandbox is compared with a \
         snapshot (bytes, modes, inodes, link targets). Special files are driven through \
         `editref call` in a child process under a watchdog, so that a hang fails the test \
         instead of stalling it.\n"
    );
    let _ = writeln!(w, "| test | hostile calls | wrong code | sandbox changed |");
    let _ = writeln!(w, "|---|---|---|---|");
    for (test, label) in [
        (
            "escapes",
            "`..`, absolute, symlink (direct, chain, parent dir), via library and binary",
        ),
        (
            "parent_swapped_before_write",
            "parent directory swapped for a symlink before the write",
        ),
        (
            "hard_links",
            "hard links inside the root and to a file outside",
        ),
        (
            "special_files",
            "FIFOs, sockets, device nodes, /dev and /proc paths",
        ),
        (
            "fifo_swapped_in",
            "a FIFO swapped in before the file is opened",
        ),
        ("nul_and_empty", "NUL bytes, empty paths, lone surrogates"),
        (
            "long_paths",
            "names over 255 bytes, paths over PATH_MAX, and the longest valid ones",
        ),
        ("non_utf8_names", "names that are not UTF-8"),
    ] {
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} |",
            r.cell("paths", test, "hostile_calls"),
            r.cell("paths", test, "wrong_code"),
            r.cell("paths", test, "corrupted")
        );
    }

    let _ = writeln!(
        w,
        "\n**Live adversary** (`tests/reliability_paths/adversary.rs`, D30). While Reads, Edits \
         and Writes run one after another on `d/…` inside the root, a second thread swaps the \
         directory `d` for a symlink to a directory outside the root and back in a tight loop \
         (`RENAME_EXCHANGE` of the real directory and a symlink, relative `../outside` and \
         absolute in turn). The outside directory holds a canary and a file the edits would \
         match, and is watched with inotify: any open, read, change or new entry there counts as \
         an escape, and so does any change of its bytes, mtimes or inodes. Every call must be \
         done inside — a Read returns the inside bytes, the inside file ends holding exactly the \
         Edits reported done, every Write reported done is inside — or refused with a code, \
         leaving no temp file. Run once with `openat2` and once with the `O_NOFOLLOW` walk that \
         replaces it on kernels without it.\n"
    );
    let _ = writeln!(
        w,
        "| resolution | calls | swaps | done inside | refused `outside_root` | refused `stale` | \
         refused, other codes | escapes |"
    );
    let _ = writeln!(w, "|---|---|---|---|---|---|---|---|");
    for (test, label) in [
        ("adversary_swap_openat2", "`openat2` (`RESOLVE_BENEATH`)"),
        ("adversary_swap_walk", "`O_NOFOLLOW` walk"),
    ] {
        let n = |k: &str| r.n("paths", test, k);
        let other = n("refused")
            .saturating_sub(n("refused_outside_root"))
            .saturating_sub(n("refused_stale"));
        let _ = writeln!(
            w,
            "| {label} | {} | {} | {} | {} | {} | {} | {} |",
            r.cell("paths", test, "attempts"),
            r.cell("paths", test, "swaps"),
            r.cell("paths", test, "done"),
            thousands(n("refused_outside_root")),
            thousands(n("refused_stale")),
            thousands(other),
            r.cell("paths", test, "escapes")
        );
    }
}
