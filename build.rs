//! Rebuilds the crate when the corpus changes: `include_dir!` embeds `conformance/` into the
//! binary, and on stable Rust it cannot tell cargo which files it read.

fn main() {
    println!("cargo:rerun-if-changed=conformance");
    println!("cargo:rerun-if-changed=build.rs");
}
